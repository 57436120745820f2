import Foundation
import UbiqIndex
import UbiqModel
import UbiqWire

/// A request from the peer that this device answers: chunks of a file, a large file's
/// chunk lists, or the versions its history keeps.
enum PeerRequest: Sendable {
    case chunks(Ubiq_Wire_ChunkRequest)
    case chunkList(Ubiq_Wire_ChunkListRequest)
    case history(Ubiq_Wire_HistoryRequest)
}

/// Answering the peer's requests, off the receive loop: at most ``servingWidth`` at a time
/// per peer, and the chunks read for all peers together held within the engine's byte
/// budget, so a peer that asks faster than it reads cannot make this device hold more.
extension PeerSession {
    /// Answers queued requests until the queue ends with the session.
    nonisolated static func answer(_ queue: AsyncStream<PeerRequest>, shared: [ContainerID: ContainerSync], link: any PeerLink,
                                   index: SyncIndex, serving: ByteBudget) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for await request in queue {
                if running == servingWidth {
                    await group.next()
                    running -= 1
                }
                running += 1
                group.addTask {
                    switch request {
                    case .chunks(let request): await answer(request, shared: shared, link: link, serving: serving)
                    case .chunkList(let request): await answer(request, shared: shared, link: link, index: index)
                    case .history(let request): await answer(request, shared: shared, link: link, index: index)
                    }
                }
            }
        }
    }

    private nonisolated static func answer(_ request: Ubiq_Wire_ChunkRequest, shared: [ContainerID: ContainerSync],
                                           link: any PeerLink, serving: ByteBudget) async {
        let run = Self.run(of: request)
        let container = (try? ContainerID(request.containerID)).flatMap { shared[$0] }
        // The budget is held until the answer is handed to the connection.
        await serving.with(run.map { $0.reduce(0) { $0 + Int($1.size) } } ?? 0) {
            var response = Ubiq_Wire_ChunkResponse()
            response.id = request.id
            if let run, let container, !container.isPaused, let bytes = await container.serveChunks(path: request.path, run: run) {
                if request.acceptsZeroRuns, let elided = ChunkZeroRuns.elide(bytes) {
                    (response.data, response.zeroRuns) = elided
                } else {
                    response.data = bytes
                }
            } else {
                response.error = .notFound
            }
            try? await link.send(Ubiq_Wire_Envelope(.chunkResponse(response)))
        }
    }

    /// Answers a chunk-list request from our index entry of the file.
    private nonisolated static func answer(_ request: Ubiq_Wire_ChunkListRequest, shared: [ContainerID: ContainerSync],
                                           link: any PeerLink, index: SyncIndex) async {
        var chunks: [ChunkRef] = []
        if let container = (try? ContainerID(request.containerID)).flatMap({ shared[$0] })?.id,
           let path = try? RelativePath(request.path), let item = try? index.items(container, at: [path])[path]?.item {
            chunks = item.chunks
        }
        let response = ChunkListMapping.response(to: request, chunks: chunks)
        try? await link.send(Ubiq_Wire_Envelope(.chunkListResponse(response)))
    }

    /// Answers a history request from our history of the container: the versions kept under
    /// the path, or those asked for by id with their chunk lists. A container not shared, a
    /// bad path or an unreadable index gets an empty answer.
    private nonisolated static func answer(_ request: Ubiq_Wire_HistoryRequest, shared: [ContainerID: ContainerSync],
                                           link: any PeerLink, index: SyncIndex) async {
        var entries: [HistoryEntry] = []
        var since: Int64?
        if let container = (try? ContainerID(request.containerID)).flatMap({ shared[$0] })?.id,
           case .success(let path) = Result(catching: { () throws(WireError) in try HistoryMapping.path(of: request) }) {
            let wanted = HistoryMapping.wanted(request)
            if !wanted.isEmpty, let path {
                entries = (try? index.history(container, path: path).filter { wanted.contains($0.id) }) ?? []
            } else if wanted.isEmpty {
                let all = (try? index.history(container)) ?? []
                entries = path.map { root in all.filter { $0.path == root || $0.path.isInside(root) } } ?? all
            }
            since = try? index.historySince(container)
        }
        let response = HistoryMapping.response(to: request, entries: entries, since: since)
        try? await link.send(Ubiq_Wire_Envelope(.historyResponse(response)))
    }

    /// The chunks a request asks for, with their offsets; nil when a size or hash is invalid.
    /// Following chunks beyond ``maxRunBytes`` are left out: the requester asks again.
    nonisolated static func run(of request: Ubiq_Wire_ChunkRequest) -> [ChunkRef]? {
        guard let hash = ChunkHash(bytes: Array(request.hash)), request.size > 0, request.size <= ItemMapping.maxChunkSize else { return nil }
        var run = [ChunkRef(offset: request.offset, size: request.size, hash: hash)]
        var end = request.offset.addingReportingOverflow(UInt64(request.size))
        var total = UInt64(request.size)
        for following in request.following {
            guard !end.overflow, let hash = ChunkHash(bytes: Array(following.hash)), following.size > 0,
                  total + UInt64(following.size) <= maxRunBytes else { break }
            run.append(ChunkRef(offset: end.partialValue, size: following.size, hash: hash))
            total += UInt64(following.size)
            end = end.partialValue.addingReportingOverflow(UInt64(following.size))
        }
        return run
    }

    /// The most one response carries beyond its first chunk.
    static let maxRunBytes: UInt64 = 4 << 20

}
