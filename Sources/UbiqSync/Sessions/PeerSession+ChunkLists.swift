import Foundation
import UbiqChunking
import UbiqIndex
import UbiqModel
import UbiqWire

/// An index update of which some large file's chunk groups could not all be rebuilt here,
/// waiting for the peer's lists of the rest.
struct AwaitingLists: Sendable {
    let container: ContainerSync
    let indexID: UInt64
    let entries: [AnnouncedItem]
    /// Groups this device already holds, by hash.
    let held: [ChunkHash: ArraySlice<ChunkRef>]
}

/// Chunk groups (protocol 2): a large file's index entry names groups of chunks, the
/// receiver rebuilds those it holds and asks for the rest.
///
/// The receive loop must not wait for those answers (they arrive through it), so such an
/// update waits in a queue that one task works through; ``IncomingIndex`` keeps the sequence
/// recorded for the peer below every entry still waiting. Version vectors make the order in
/// which updates are recorded safe.
extension PeerSession {
    /// Whether our index entries may name chunk groups.
    var grouped: Bool { (agreement?.version ?? 1) >= 2 }

    /// The chunk groups this device has or will fetch that `entries` may name: at their own
    /// paths, and at the paths the same update deletes (a rename).
    nonisolated func heldChunkGroups(_ container: ContainerID, for entries: [AnnouncedItem]) throws -> [ChunkHash: ArraySlice<ChunkRef>] {
        guard entries.contains(where: { !$0.groups.isEmpty }) else { return [:] }
        let paths = entries.filter { !$0.groups.isEmpty || ($0.item.deleted && $0.item.kind == .file) }.map(\.item.path)
        let items = try index.items(container, at: paths).values.map(\.item.chunks)
        let needs = try index.needs(container, at: paths).values.map(\.chunks)
        return ChunkGroups.catalog((items + needs).filter { !$0.isEmpty })
    }

    /// Queues an update that needs chunk lists from the peer.
    func awaitLists(_ entries: [AnnouncedItem], container: ContainerSync, indexID: UInt64,
                    held: [ChunkHash: ArraySlice<ChunkRef>]) throws {
        guard incoming.wait(for: entries.map { ($0.item.path, $0.sequence) }, in: container.id) else {
            throw WireError(.malformed, "more than \(IncomingIndex.maxAwaiting) index entries wait for their chunk lists")
        }
        listRequests.yield(AwaitingLists(container: container, indexID: indexID, entries: entries, held: held))
    }

    /// Works through waiting updates one at a time until the session ends.
    func resolveChunkLists(_ queue: AsyncStream<AwaitingLists>) async {
        for await waiting in queue {
            guard await resolve(waiting) else { return }
        }
    }

    private func isWaiting(_ entry: AnnouncedItem, in container: ContainerID) -> Bool {
        incoming.isWaiting(entry.item.path, sequence: entry.sequence, in: container)
    }

    /// Asks for the missing groups, then records the update. A group the peer no longer has
    /// means it changed the file since; its newer entry follows, so this one is dropped.
    /// False when the peer did not answer (the session ends).
    private func resolve(_ waiting: AwaitingLists) async -> Bool {
        let id = waiting.container.id
        var lists = waiting.held
        do {
            for entry in waiting.entries where isWaiting(entry, in: id) {
                let missing = entry.missing(from: lists)
                for start in stride(from: 0, to: missing.count, by: ChunkListMapping.maxGroups) {
                    let batch = Array(missing[start..<min(start + ChunkListMapping.maxGroups, missing.count)])
                    let answer = try await exchange { requestID in
                        Ubiq_Wire_Envelope(.chunkListRequest(
                            ChunkListMapping.request(id: requestID, container: id, path: entry.item.path, groups: batch)))
                    }
                    guard case .chunkListResponse(let response) = answer else {
                        throw FetchError("peer \(link.remoteDevice) answered a chunk-list request with something else")
                    }
                    lists.merge(ChunkListMapping.lists(response)) { held, _ in held }
                }
            }
        } catch {
            logger.info("peer did not list the chunks of a file; ending the connection so it sends the entry again",
                        metadata: ["container": "\(id)", "error": "\(error)"])
            await end()
            return false
        }
        var items: [Item] = []
        var absent: Set<RelativePath> = []
        for entry in waiting.entries where isWaiting(entry, in: id) {
            incoming.resolved(entry.item.path, in: id)
            guard let item = entry.resolved(from: lists) else {
                logger.info("peer no longer has the chunk lists of a file it announced; its newer entry follows",
                            metadata: ["container": "\(id)", "path": "\(entry.item.path)"])
                continue
            }
            items.append(item)
            if entry.absent { absent.insert(item.path) }
        }
        let state = incoming.state(of: id, indexID: waiting.indexID, upTo: incoming.lastSeen(in: id))
        do {
            try await waiting.container.receive(items, absent: absent, from: link.remoteDevice, state: state)
        } catch {
            logger.warning("could not record a peer's index update", metadata: ["container": "\(id)", "error": "\(error)"])
        }
        return true
    }
}
