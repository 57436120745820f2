import Foundation
import Logging
import Synchronization
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
    /// The account's devices, passed to peers of protocol 4; nil: not passed.
    nonisolated let devices: AccountDevices?
    /// Where what the peer says it holds of versions it assembles goes.
    nonisolated let swarm: SwarmBoard
    let hello: Ubiq_Wire_Hello
    let index: SyncIndex
    let logger: Logger
    /// Requests sent and not yet answered; each waiter gets the answer's message.
    private var requests = PendingRequests<OneShot<Ubiq_Wire_Envelope.OneOf_Message>, ContinuousClock.Instant>(
        stallMemory: PeerSession.stallMemory)
    /// The peer's requests waiting to be answered, in order.
    private let requestsIn: AsyncStream<PeerRequest>.Continuation
    private let requestQueue: AsyncStream<PeerRequest>
    /// Bytes read for peers and not yet sent, shared by every session.
    nonisolated let serving: ByteBudget
    /// What the session has taken in of the peer's index: sequences seen, entries waiting for
    /// their chunk lists.
    var incoming = IncomingIndex()
    let listRequests: AsyncStream<AwaitingLists>.Continuation
    private let listQueue: AsyncStream<AwaitingLists>
    private(set) var agreement: Handshake.Agreement?
    /// Whether the peer's hello arrived: a peer that closes before it (a paused agent) did not
    /// refuse this device's protocol, and may be dialed again soon.
    private(set) var heardHello = false
    private nonisolated let name = Mutex("")
    /// The name the peer gave in its hello; empty before.
    public nonisolated var remoteName: String { name.withLock { $0 } }
    /// Where the tasks the session starts run: sending its index and answering requests
    /// read the index and the disk (``WorkerPool``). The session itself stays on Swift's
    /// pool: its receive loop mostly hands messages on, and a hop to the worker pool for each
    /// chunk answer cost 5–10% of a large transfer. Also the clock of pings and timeouts.
    nonisolated let environment: EngineEnvironment
    nonisolated var clock: any EngineClock { environment.clock }
    private var ended = false

    public static let requestTimeout: Duration = .seconds(30)
    /// How long a peer that let a request time out is asked after the others.
    static let stallMemory: Duration = .seconds(120)
    /// The peer's requests answered at the same time at most.
    static let servingWidth = 8
    /// The peer's requests that may wait to be answered; a peer that sends more is flooding,
    /// and the connection ends (this device asks at most a few hundred at a time).
    static let maxWaitingRequests = 4096
    /// How long a peer may take to say hello after the TLS handshake.
    static let helloTimeout: Duration = .seconds(10)
    /// How long the Close frame to a refused peer may wait to be sent: a peer that reads
    /// nothing fills the connection, and the send would otherwise wait for ever.
    static let closeTimeout: Duration = .seconds(5)
    /// How often an idle connection says it is alive, and how long the peer may stay silent
    /// before the connection counts as dead (a cut link sends no FIN).
    let pingInterval: Duration
    private var lastHeard: ContinuousClock.Instant
    private var silent = false
    /// A frame is being taken in: the time it takes is this agent's, not the peer's silence.
    private var takingIn = false

    init(link: any PeerLink, containers: [ContainerID: ContainerSync], stores: [KeyValueStoreID: KeyValueStore],
         hello: Ubiq_Wire_Hello, index: SyncIndex, serving: ByteBudget, pingInterval: Duration, environment: EngineEnvironment = .live,
         devices: AccountDevices? = nil, swarm: SwarmBoard = SwarmBoard(), logger: Logger) {
        self.link = link
        self.swarm = swarm
        self.devices = devices
        self.environment = environment
        self.lastHeard = environment.clock.now
        self.serving = serving
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
        (requestQueue, requestsIn) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.maxWaitingRequests))
    }

    /// True once both hellos agreed.
    var agreed: Bool { agreement != nil }
    /// Whether the peer takes file packages (protocol 5).
    var carriesPackages: Bool { (agreement?.version ?? 1) >= 5 }
    /// Whether the peer takes word of pieces of versions this device assembles (protocol 6).
    var takesProgress: Bool { (agreement?.version ?? 1) >= 6 }

    public var sharedContainers: Set<ContainerID> { Set(agreement.map { Array($0.containers.keys) } ?? []) }

    /// Runs the conversation until the link ends. Returns the reason it ended.
    func run(onAgreed: @Sendable () async -> Void) async -> String {
        let stream = link.envelopes()
        do {
            try await link.send(Ubiq_Wire_Envelope(.hello(hello)))
            let first: Ubiq_Wire_Envelope?
            do {
                first = try await withDeadline(Self.helloTimeout, clock: clock) {
                    var iterator = stream.makeAsyncIterator()
                    return try await iterator.next()
                }
            } catch is DeadlineExceeded {
                logger.warning("peer sent no hello in time; closing", metadata: ["timeout": "\(Self.helloTimeout)"])
                await end()
                return "no hello within \(Self.helloTimeout)"
            }
            guard case .hello(let theirs)? = first?.message else {
                throw WireError(.unexpectedMessage, first == nil ? "the peer closed the link before its hello" : "the first message was not Hello")
            }
            heardHello = true
            let agreement: Handshake.Agreement
            do { agreement = try Handshake.agree(ours: hello, theirs: theirs, authenticatedDevice: link.remoteDevice) } catch {
                await refuse(error)
                return error.reason
            }
            self.agreement = agreement
            name.withLock { $0 = theirs.deviceName }
            logger.info("peer connected", metadata: ["name": "\(theirs.deviceName)", "version": "\(agreement.version)",
                                                     "containers": "\(agreement.containers.keys.sorted())",
                                                     "kvstores": "\(agreement.stores.keys.sorted())"])
            await onAgreed()
            await joinStores(agreement)
            let snapshots = try keyValueSnapshots(agreement)
            let containers = self.containers, stores = self.stores
            let shared = containers.filter { agreement.containers[$0.key] != nil }
            let (link, index, serving, queue) = (link, index, serving, requestQueue)
            let senders = Task(executorPreference: environment.executor) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (id, offer) in agreement.containers {
                        guard let container = containers[id] else { continue }
                        group.addTask { try await self.sendIndex(container, offer: offer) }
                    }
                    for (id, snapshot) in snapshots {
                        guard let store = stores[id] else { continue }
                        group.addTask { try await self.sendKeyValues(store, offer: snapshot.offer, snapshot: snapshot.entries) }
                    }
                    if let devices = self.devices, agreement.version >= 4 {
                        group.addTask { try await self.sendDevices(devices) }
                    }
                    if agreement.version >= 6 {
                        group.addTask { try await self.sendProgress(of: shared) }
                    }
                    group.addTask { try await self.keepAlive() }
                    group.addTask { await self.resolveChunkLists(self.listQueue) }
                    group.addTask { await Self.answer(queue, shared: shared, link: link, index: index, serving: serving) }
                    try await group.waitForAll()
                }
            }
            defer { senders.cancel() }
            var iterator = stream.makeAsyncIterator()
            while let envelope = try await iterator.next() {
                takingIn = true
                let reason = try await handle(envelope)
                takingIn = false
                lastHeard = clock.now
                if let reason { return reason }
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
            return heardHello ? "\(error)" : "the link ended before the peer's hello: \(error)"
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
        let frame = Ubiq_Wire_Envelope(.close(close))
        _ = try? await withDeadline(Self.closeTimeout, clock: clock) { [link] in try await link.send(frame) }
        await end()
    }

    func end() async {
        guard !ended else { return }
        ended = true
        await leaveStores()
        for waiter in requests.endAll() { waiter.resolve(.failure(FetchError("connection to \(link.remoteDevice) ended"))) }
        listRequests.finish()
        requestsIn.finish()
        await link.close()
    }

    /// Pings every `pingInterval`; ends the session after three intervals without a word
    /// from the peer. A flood that this agent is slow to take in is no silence: the time spent
    /// on a frame does not count (under load, one index update of 500 folders took longer
    /// than three intervals, and a peer that never paused was dropped as silent).
    private func keepAlive() async throws {
        while true {
            try await clock.sleep(for: pingInterval)
            if !takingIn && clock.now - lastHeard > pingInterval * 3 {
                silent = true
                logger.info("peer stopped answering; closing the connection", metadata: ["silence": "\(clock.now - lastHeard)"])
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
        let limit = 1000
        for await _ in container.sequenceChanges() {
            // A resume announces again.
            if container.isPaused || !container.isAvailable { continue }
            while true {
                let batch = try index.items(container.id, after: sent, limit: limit)
                guard let last = batch.last else { break }
                var update = Ubiq_Wire_IndexUpdate()
                update.containerID = container.id.rawValue
                update.indexID = state.indexID
                update.lastSequence = UInt64(last.sequence)
                // Files whose deletions are held here are listed without their content.
                let heldBack = container.contentHeldBack
                // A peer of protocol 4 or older cannot hold a package: it never hears of one.
                update.items = batch.filter { carriesPackages || $0.item.kind != .package }.map {
                    ItemMapping.fileInfo($0.item, sequence: $0.sequence, absent: !$0.downloaded || heldBack.contains($0.item.path),
                                         grouped: grouped)
                }
                try await link.send(Ubiq_Wire_Envelope(.indexUpdate(update)))
                sent = last.sequence
                // The end for now: a later change is announced after it is committed, and the
                // stream keeps that announcement for the next round.
                if batch.count < limit { break }
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
            try queue(.chunks(request))
        case .chunkResponse(let response):
            answer(response.id, .chunkResponse(response))
        case .chunkListRequest(let request):
            try queue(.chunkList(request))
        case .chunkListResponse(let response):
            answer(response.id, .chunkListResponse(response))
        case .historyRequest(let request):
            try queue(.history(request))
        case .historyResponse(let response):
            answer(response.id, .historyResponse(response))
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
        case .deviceList(let list):
            await receiveDevices(list)
        case .accountRotations(let rotations):
            devices?.received(rotations: rotations, from: link.remoteDevice)
        case .chunkProgress(let message):
            receiveProgress(message)
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
            do throws(WireError) {
                let entry = try ItemMapping.announced(info)
                guard carriesPackages || entry.item.kind != .package else {
                    throw WireError(.malformed, "'\(entry.item.path)' is a package, which protocol \(agreement?.version ?? 0) does not carry")
                }
                entries.append(entry)
            } catch {
                logger.warning("refused index entry", metadata: ["container": "\(id)", "code": "\(error.code)", "reason": "\(error.reason)"])
            }
        }
        let last = Int64(clamping: update.lastSequence)
        let held = try heldChunkGroups(id, for: entries)
        for entry in entries { incoming.supersede(entry.item.path, in: id) }
        var items: [Item] = []
        var absent: Set<RelativePath> = []
        items.reserveCapacity(entries.count)
        for entry in entries {
            guard let item = entry.resolved(from: held) else {
                // The whole update waits, so a rename's deletion is not applied before its creation.
                try awaitLists(entries, container: container, indexID: update.indexID, held: held)
                incoming.saw(last, in: id)
                return
            }
            items.append(item)
            if entry.absent { absent.insert(item.path) }
        }
        try await container.receive(items, absent: absent, from: link.remoteDevice,
                                    state: incoming.state(of: id, indexID: update.indexID, upTo: last))
        incoming.saw(last, in: id)
    }

    /// Queues a peer's request to be answered off the receive loop.
    private func queue(_ request: PeerRequest) throws {
        if case .dropped = requestsIn.yield(request) {
            throw WireError(.malformed, "more than \(Self.maxWaitingRequests) requests wait to be answered")
        }
    }

    private func answer(_ id: UInt64, _ message: Ubiq_Wire_Envelope.OneOf_Message) {
        requests.answered(id)?.resolve(.success(message))
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
            request.acceptsZeroRuns = true
            return Ubiq_Wire_Envelope(.chunkRequest(request))
        }
        guard case .chunkResponse(let response) = answer else {
            throw FetchError("peer \(link.remoteDevice) answered a chunk request with something else", kind: .badAnswer)
        }
        guard response.error == .none else {
            throw FetchError("peer \(link.remoteDevice) does not have the chunk (\(response.error))", kind: .notServed)
        }
        do {
            return try ChunkZeroRuns.restore(response.data, runs: response.zeroRuns, limit: run.reduce(0) { $0 + Int($1.size) })
        } catch {
            throw FetchError("peer \(link.remoteDevice) sent a chunk response that does not fit the request: \(error)", kind: .badAnswer)
        }
    }

    /// Sends the request `make` builds with a fresh ID and waits for the answer with that ID,
    /// at most ``requestTimeout``. A request that cannot be sent fails with the send's error;
    /// a cancelled caller stops waiting at once.
    func exchange(_ make: (UInt64) -> Ubiq_Wire_Envelope) async throws -> Ubiq_Wire_Envelope.OneOf_Message {
        guard !ended else { throw FetchError("connection to \(link.remoteDevice) ended") }
        let answer = OneShot<Ubiq_Wire_Envelope.OneOf_Message>()
        let id = requests.open(answer)
        do { try await link.send(make(id)) } catch {
            _ = requests.withdrawn(id)
            throw FetchError("could not send a request to \(link.remoteDevice): \(error)")
        }
        do {
            return try await withDeadline(Self.requestTimeout, clock: clock) { try await answer.value }
        } catch is DeadlineExceeded {
            if requests.timedOut(id, at: clock.now) != nil {
                logger.warning("request timed out; asking other peers first for a while", metadata: ["timeout": "\(Self.requestTimeout)"])
            }
            throw FetchError("request to \(link.remoteDevice) timed out")
        } catch {
            _ = requests.withdrawn(id)
            throw error
        }
    }

    /// True when a request to this peer timed out in the last ``stallMemory``.
    var stalledLately: Bool { requests.stalled(at: clock.now) }
}
