import Foundation
import Logging
import UbiqIndex
import UbiqModel
import UbiqWire

/// One connection's conversation with a peer: hello, index exchange in both directions,
/// chunk requests and answers. Ends when the link ends; the engine makes a new one on
/// reconnect, and the index exchange resumes from the stored sequences.
public actor PeerSession {
    public nonisolated let link: any PeerLink
    nonisolated let containers: [ContainerID: ContainerSync]
    nonisolated let stores: [KeyValueStoreID: KeyValueStore]
    let hello: Ubiq_Wire_Hello
    let index: SyncIndex
    let logger: Logger
    /// Requests sent and not yet answered, by ID; each resumes with the answer's message.
    private var pending: [UInt64: CheckedContinuation<Ubiq_Wire_Envelope.OneOf_Message, any Error>] = [:]
    private var nextRequest: UInt64 = 1
    /// Per container: files whose chunk lists are being asked for, path → the entry's sequence.
    var awaitingLists: [ContainerID: [RelativePath: Int64]] = [:]
    /// Per container: the last sequence of the peer's latest index update recorded.
    var recordedSequence: [ContainerID: Int64] = [:]
    let listRequests: AsyncStream<AwaitingLists>.Continuation
    private let listQueue: AsyncStream<AwaitingLists>
    private(set) var agreement: Handshake.Agreement?
    public private(set) var remoteName = ""
    private var ended = false

    public static let requestTimeout: Duration = .seconds(30)
    /// How long a peer that let a request time out is asked after the others.
    static let stallMemory: Duration = .seconds(120)
    private var lastTimeout: ContinuousClock.Instant?
    /// How long a peer may take to say hello after the TLS handshake.
    static let helloTimeout: Duration = .seconds(10)
    /// How often an idle connection says it is alive, and how long the peer may stay silent
    /// before the connection counts as dead (a cut link sends no FIN).
    let pingInterval: Duration
    private var lastHeard = ContinuousClock.now
    private var silent = false

    init(link: any PeerLink, containers: [ContainerID: ContainerSync], stores: [KeyValueStoreID: KeyValueStore],
         hello: Ubiq_Wire_Hello, index: SyncIndex, pingInterval: Duration, logger: Logger) {
        self.link = link
        self.stores = stores
        self.pingInterval = pingInterval
        self.containers = containers
        self.hello = hello
        self.index = index
        var logger = logger
        logger[metadataKey: "peer"] = "\(link.remoteDevice)"
        logger[metadataKey: "address"] = "\(link.remoteAddress)"
        self.logger = logger
        (listQueue, listRequests) = AsyncStream.makeStream()
    }

    /// True once both hellos agreed.
    var agreed: Bool { agreement != nil }

    public var sharedContainers: Set<ContainerID> { Set(agreement.map { Array($0.containers.keys) } ?? []) }

    /// Runs the conversation until the link ends. Returns the reason it ended.
    func run(onAgreed: @Sendable () async -> Void) async -> String {
        let stream = link.envelopes()
        var iterator = stream.makeAsyncIterator()
        let helloDeadline = Task { [weak self] in
            try await Task.sleep(for: Self.helloTimeout)
            await self?.endWithoutAgreement()
        }
        defer { helloDeadline.cancel() }
        do {
            try await link.send(Ubiq_Wire_Envelope(.hello(hello)))
            guard case .hello(let theirs)? = try await iterator.next()?.message else {
                throw WireError(.unexpectedMessage, "the first message was not Hello")
            }
            let agreement: Handshake.Agreement
            do { agreement = try Handshake.agree(ours: hello, theirs: theirs, authenticatedDevice: link.remoteDevice) } catch {
                await refuse(error)
                return error.reason
            }
            self.agreement = agreement
            remoteName = theirs.deviceName
            logger.info("peer connected", metadata: ["name": "\(theirs.deviceName)", "version": "\(agreement.version)",
                                                     "containers": "\(agreement.containers.keys.sorted())",
                                                     "kvstores": "\(agreement.stores.keys.sorted())"])
            await onAgreed()
            await joinStores(agreement)
            let snapshots = try keyValueSnapshots(agreement)
            let containers = self.containers, stores = self.stores
            let senders = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (id, offer) in agreement.containers {
                        guard let container = containers[id] else { continue }
                        group.addTask { try await self.sendIndex(container, offer: offer) }
                    }
                    for (id, snapshot) in snapshots {
                        guard let store = stores[id] else { continue }
                        group.addTask { try await self.sendKeyValues(store, offer: snapshot.offer, snapshot: snapshot.entries) }
                    }
                    group.addTask { try await self.keepAlive() }
                    group.addTask { await self.resolveChunkLists(self.listQueue) }
                    try await group.waitForAll()
                }
            }
            defer { senders.cancel() }
            while let envelope = try await iterator.next() {
                lastHeard = ContinuousClock.now
                if let reason = try await handle(envelope) { return reason }
                // A peer that sends without pause must not keep other peers, clients and the
                // puller from their turn.
                await Task.yield()
            }
            await end()
            return silent ? "the peer stopped answering" : "connection closed"
        } catch let error as WireError {
            await refuse(error)
            return error.reason
        } catch {
            logger.info("peer connection ended", metadata: ["error": "\(error)"])
            await end()
            return "\(error)"
        }
    }

    private func refuse(_ error: WireError) async {
        logger.error("peer refused", metadata: ["reason": "\(error.reason)"])
        var close = Ubiq_Wire_Close()
        close.code = switch error.code {
        case .noCommonVersion: .noCommonVersion
        case .wrongDevice: .wrongDevice
        default: .protocolError
        }
        close.reason = error.reason
        try? await link.send(Ubiq_Wire_Envelope(.close(close)))
        await end()
    }

    private func endWithoutAgreement() async {
        guard agreement == nil, !ended else { return }
        logger.warning("peer sent no hello in time; closing", metadata: ["timeout": "\(Self.helloTimeout)"])
        await end()
    }

    func end() async {
        guard !ended else { return }
        ended = true
        await leaveStores()
        for continuation in pending.values { continuation.resume(throwing: FetchError("connection to \(link.remoteDevice) ended")) }
        pending.removeAll()
        listRequests.finish()
        await link.close()
    }

    /// Pings every `pingInterval`; ends the session after three intervals without a word
    /// from the peer.
    private func keepAlive() async throws {
        while true {
            try await Task.sleep(for: pingInterval)
            if ContinuousClock.now - lastHeard > pingInterval * 3 {
                silent = true
                logger.info("peer stopped answering; closing the connection", metadata: ["silence": "\(ContinuousClock.now - lastHeard)"])
                await end()
                return
            }
            try await link.send(Ubiq_Wire_Envelope(.ping(Ubiq_Wire_Ping())))
        }
    }

    // MARK: index out

    private func sendIndex(_ container: ContainerSync, offer: Ubiq_Wire_ContainerOffer) async throws {
        let state = try index.containerState(container.id)
        var sent: Int64 = offer.peerIndexID == state.indexID ? Int64(clamping: offer.peerMaxSequence) : 0
        for await _ in container.sequenceChanges() {
            while true {
                let batch = try index.items(container.id, after: sent, limit: 1000)
                guard let last = batch.last else { break }
                var update = Ubiq_Wire_IndexUpdate()
                update.containerID = container.id.rawValue
                update.indexID = state.indexID
                update.lastSequence = UInt64(last.sequence)
                update.items = batch.map { ItemMapping.fileInfo($0.item, sequence: $0.sequence, absent: !$0.downloaded, grouped: grouped) }
                try await link.send(Ubiq_Wire_Envelope(.indexUpdate(update)))
                sent = last.sequence
            }
        }
    }

    // MARK: messages in

    /// Handles one message; returns a reason when the conversation must end.
    private func handle(_ envelope: Ubiq_Wire_Envelope) async throws -> String? {
        switch envelope.message {
        case .indexUpdate(let update):
            try await receiveIndex(update)
        case .chunkRequest(let request):
            serve(request)
        case .chunkResponse(let response):
            answer(response.id, .chunkResponse(response))
        case .chunkListRequest(let request):
            serve(request)
        case .chunkListResponse(let response):
            answer(response.id, .chunkListResponse(response))
        case .close(let close):
            logger.info("peer closed the connection", metadata: ["reason": "\(close.reason)"])
            await end()
            return "peer closed: \(close.reason)"
        case .hello:
            throw WireError(.unexpectedMessage, "a second Hello")
        case .keyValueUpdate(let update):
            try await receiveKeyValues(update)
        case .keyValueAck(let ack):
            await receiveAcknowledgement(ack)
        case .ping, nil:
            break
        }
        return nil
    }

    private func receiveIndex(_ update: Ubiq_Wire_IndexUpdate) async throws {
        guard let id = try? ContainerID(update.containerID), let offer = agreement?.containers[id], let container = containers[id] else {
            logger.warning("index update for a container not shared", metadata: ["container": "\(update.containerID.prefix(100))"])
            return
        }
        guard update.indexID == offer.indexID else {
            throw WireError(.malformed, "index update with index ID \(update.indexID), the hello said \(offer.indexID)")
        }
        var entries: [AnnouncedItem] = []
        entries.reserveCapacity(update.items.count)
        for info in update.items {
            do { entries.append(try ItemMapping.announced(info)) } catch {
                logger.warning("refused index entry", metadata: ["container": "\(id)", "code": "\(error.code)", "reason": "\(error.reason)"])
            }
        }
        let last = Int64(clamping: update.lastSequence)
        let held = try heldChunkGroups(id, for: entries)
        for entry in entries { supersede(id, entry.item.path) }
        var items: [Item] = []
        var absent: Set<RelativePath> = []
        items.reserveCapacity(entries.count)
        for entry in entries {
            guard let item = entry.resolved(from: held) else {
                // The whole update waits, so a rename's deletion is not applied before its creation.
                try awaitLists(entries, container: container, indexID: update.indexID, held: held)
                recordedSequence[id] = max(recordedSequence[id] ?? 0, last)
                return
            }
            items.append(item)
            if entry.absent { absent.insert(item.path) }
        }
        try await container.receive(items, absent: absent, from: link.remoteDevice, state: indexState(id, indexID: update.indexID, upTo: last))
        recordedSequence[id] = max(recordedSequence[id] ?? 0, last)
    }

    /// The container a peer's request names, if this session shares it with that peer.
    func shared(_ raw: String) -> ContainerSync? {
        guard let id = try? ContainerID(raw), agreement?.containers[id] != nil else { return nil }
        return containers[id]
    }

    /// Answers a chunk request off the receive loop.
    private func serve(_ request: Ubiq_Wire_ChunkRequest) {
        let link = self.link
        let container = shared(request.containerID)
        Task.detached {
            var response = Ubiq_Wire_ChunkResponse()
            response.id = request.id
            if let run = Self.run(of: request), let container,
               let bytes = await container.serveChunks(path: request.path, run: run) {
                response.data = bytes
            } else {
                response.error = .notFound
            }
            try? await link.send(Ubiq_Wire_Envelope(.chunkResponse(response)))
        }
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

    private func answer(_ id: UInt64, _ message: Ubiq_Wire_Envelope.OneOf_Message) {
        pending.removeValue(forKey: id)?.resume(returning: message)
    }

    // MARK: chunk requests out

    func request(_ container: ContainerID, path: RelativePath, run: [ChunkRef]) async throws -> Data {
        guard let first = run.first else { return Data() }
        let answer = try await exchange { id in
            var request = Ubiq_Wire_ChunkRequest()
            request.id = id
            request.containerID = container.rawValue
            request.path = path.rawValue
            request.offset = first.offset
            request.size = first.size
            request.hash = Data(first.hash.bytes)
            request.following = run.dropFirst().map { chunk in
                var following = Ubiq_Wire_ChunkEntry()
                following.size = chunk.size
                following.hash = Data(chunk.hash.bytes)
                return following
            }
            return Ubiq_Wire_Envelope(.chunkRequest(request))
        }
        guard case .chunkResponse(let response) = answer else {
            throw FetchError("peer \(link.remoteDevice) answered a chunk request with something else")
        }
        guard response.error == .none else {
            throw FetchError("peer \(link.remoteDevice) does not have the chunk (\(response.error))")
        }
        return response.data
    }

    /// Sends the request `make` builds with a fresh ID and waits for the answer with that ID.
    func exchange(_ make: (UInt64) -> Ubiq_Wire_Envelope) async throws -> Ubiq_Wire_Envelope.OneOf_Message {
        guard !ended else { throw FetchError("connection to \(link.remoteDevice) ended") }
        let id = nextRequest
        nextRequest += 1
        let envelope = make(id)
        let timeout = Task { [weak self] in
            try await Task.sleep(for: Self.requestTimeout)
            await self?.expire(id)
        }
        defer { timeout.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            pending[id] = continuation
            Task { [link] in
                do { try await link.send(envelope) } catch { self.expire(id) }
            }
        }
    }

    private func expire(_ id: UInt64) {
        guard let continuation = pending.removeValue(forKey: id) else { return }
        lastTimeout = ContinuousClock.now
        logger.warning("request timed out; asking other peers first for a while", metadata: ["timeout": "\(Self.requestTimeout)"])
        continuation.resume(throwing: FetchError("request to \(link.remoteDevice) timed out"))
    }

    /// True when a request to this peer timed out in the last ``stallMemory``.
    var stalledLately: Bool {
        lastTimeout.map { ContinuousClock.now - $0 < Self.stallMemory } ?? false
    }
}
