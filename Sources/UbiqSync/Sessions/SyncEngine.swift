import Foundation
import Logging
import UbiqIndex
import UbiqModel
import UbiqWire

/// The registry of containers and peer sessions: takes authenticated links, keeps one
/// session per peer device, and finds a peer for each chunk the puller needs.
public actor SyncEngine {
    /// What the agent shows of a peer in status.
    public struct PeerRecord: Sendable {
        public var device: DeviceID
        public var name: String
        public var address: String
        public var connected: Bool
        public var since: Date?
        public var bytesSent: UInt64
        public var bytesReceived: UInt64
        public var lastError: String?
    }

    public nonisolated let device: DeviceID
    let deviceName: String
    let agentVersion: String
    let index: SyncIndex
    let pingInterval: Duration
    /// The clock, threads and chance the engine's sessions use.
    nonisolated let environment: EngineEnvironment
    public nonisolated let protocolVersions: [UInt32]
    public nonisolated let containers: [ContainerID: ContainerSync]
    public nonisolated let stores: [KeyValueStoreID: KeyValueStore]
    /// The account's devices: passed to peers, and removed ones refused; nil: neither.
    public nonisolated let devices: AccountDevices?
    let logger: Logger
    private var sessions: [DeviceID: PeerSession] = [:]
    private var records: [DeviceID: PeerRecord] = [:]
    /// Chunks read for peers and not yet sent, all sessions together.
    nonisolated let serving = ByteBudget(limit: SyncEngine.servingBytes)
    /// How many bytes of chunks this device holds at most for peers' requests at once.
    public static let servingBytes = 16 << 20
    /// Whether the whole agent is paused: no peer connection is kept or taken.
    public private(set) var paused = false
    /// What peers said they hold of versions they assemble.
    nonisolated let swarm = SwarmBoard()
    /// What this device holds of the versions it assembles, on its way to peers.
    nonisolated let announcer = SwarmAnnouncer()
    /// Bytes moved by sessions that have ended, per peer, so counters survive reconnects.
    private var pastBytes: [DeviceID: (sent: UInt64, received: UInt64)] = [:]

    public init(device: DeviceID, deviceName: String, agentVersion: String, index: SyncIndex,
                containers: [ContainerSync], stores: [KeyValueStore] = [], pingInterval: Duration = .seconds(2),
                protocolVersions: [UInt32] = Handshake.supportedVersions, environment: EngineEnvironment = .live,
                devices: AccountDevices? = nil, logger: Logger) {
        self.device = device
        self.devices = devices
        self.environment = environment
        self.pingInterval = pingInterval
        self.protocolVersions = protocolVersions
        self.deviceName = deviceName
        self.agentVersion = agentVersion
        self.index = index
        self.containers = Dictionary(uniqueKeysWithValues: containers.map { ($0.id, $0) })
        self.stores = Dictionary(uniqueKeysWithValues: stores.map { ($0.id, $0) })
        self.logger = logger
    }

    /// How a link served ended, for a dialer's wait before it dials again.
    public enum LinkEnd: Sendable, Equatable {
        /// Both hellos agreed (or the link was a second one to a connected peer).
        case agreed
        /// Refused: the hellos did not agree, or this device would not take the link.
        case refused
        /// The peer closed the link before its hello: a paused agent does, and takes links
        /// again once it resumes.
        case closedBeforeHello
    }

    /// Runs a session over an authenticated link until it ends. Of two links to the same
    /// device, both ends keep the same one (``LinkChoice``). Says how it ended, so a dialer
    /// waits longer after a refusal.
    @discardableResult
    public func serve(_ link: any PeerLink) async -> LinkEnd {
        let remote = link.remoteDevice
        guard !paused else {
            logger.debug("refused a connection while paused", metadata: ["peer": "\(remote)", "address": "\(link.remoteAddress)"])
            await link.close()
            return .refused
        }
        if let devices, devices.isRevoked(remote) {
            logger.warning("refused a device removed from the account", metadata: ["peer": "\(remote)", "address": "\(link.remoteAddress)"])
            await link.close()
            return .refused
        }
        guard remote != device else {
            logger.warning("refused a connection to ourselves", metadata: ["address": "\(link.remoteAddress)"])
            await link.close()
            return .refused
        }
        let hello: Ubiq_Wire_Hello
        do { hello = try makeHello(for: remote) } catch {
            logger.error("cannot read the index to greet a peer", metadata: ["peer": "\(remote)", "error": "\(error)"])
            await link.close()
            return .refused
        }
        // Decided and installed with no suspension in between, so a link that arrives
        // meanwhile is judged against this one and never installed beside it.
        let replaced = sessions[remote]
        if let replaced, LinkChoice.choose(newDialedBy: dialer(of: link), existingDialedBy: dialer(of: replaced.link),
                                           local: device, remote: remote) == .keepExisting {
            logger.debug("closed a second link to a connected peer", metadata: ["peer": "\(remote)", "address": "\(link.remoteAddress)"])
            await link.close()
            return .agreed
        }
        let session = PeerSession(link: link, containers: containers, stores: stores, hello: hello, index: index,
                                  serving: serving, pingInterval: pingInterval, environment: environment, devices: devices,
                                  swarm: swarm, logger: logger)
        sessions[remote] = session
        records[remote] = PeerRecord(device: remote, name: records[remote]?.name ?? "", address: link.remoteAddress,
                                     connected: true, since: Date(), bytesSent: 0, bytesReceived: 0, lastError: nil)
        if let replaced {
            logger.info("a newer link to a peer replaces the one in use", metadata: ["peer": "\(remote)"])
            await replaced.end()
        }
        let sighting = Self.reachableAddress(of: link)
        let reason = await session.run { [containers, devices, environment] in
            await devices?.seen(remote, address: sighting, at: environment.clock.wallNanoseconds / 1_000_000)
            for container in containers.values {
                await container.retryFailedChangesSoon()
                container.requestPull()
            }
        }
        let name = session.remoteName
        var past = pastBytes[remote] ?? (0, 0)
        past.sent += link.bytesSent
        past.received += link.bytesReceived
        pastBytes[remote] = past
        // A replaced session's end says nothing about the peer's state now.
        if sessions[remote] === session {
            sessions[remote] = nil
            swarm.forget(remote)
            records[remote]?.connected = false
            records[remote]?.lastError = reason
        }
        if !name.isEmpty { records[remote]?.name = name }
        guard await session.agreed else { return await session.heardHello ? .refused : .closedBeforeHello }
        await devices?.seen(remote, address: sighting, at: environment.clock.wallNanoseconds / 1_000_000)
        return .agreed
    }

    /// Where the device at the other end of `link` can be reached: the address dialled, or
    /// for a link it dialled, its host alone (the port is one its system picked).
    static func reachableAddress(of link: any PeerLink) -> String {
        let address = link.remoteAddress
        guard !link.isOutgoing, let colon = address.lastIndex(of: ":") else { return address }
        let host = address[..<colon]
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : String(host)
    }

    /// Ends the sessions with devices removed from the account.
    public func endSessions(with removed: [DeviceID]) async {
        for device in removed {
            guard let session = sessions[device] else { continue }
            logger.warning("ended the session of a device removed from the account", metadata: ["peer": "\(device)"])
            await session.end()
        }
    }

    /// Pauses or resumes all syncing: paused, every connection ends and none is taken, so
    /// nothing is sent or received; local changes are still indexed. Kept in the index.
    public func setPaused(_ paused: Bool) async throws {
        try index.setAgentPaused(paused)
        self.paused = paused
        logger.info(paused ? "agent paused: every peer connection ends" : "agent resumed")
        guard paused else { return }
        for session in sessions.values { await session.end() }
    }

    /// Reads the pause kept across restarts.
    public func loadPause() throws {
        paused = try index.isAgentPaused()
        if paused { logger.info("agent paused since before the restart; `ubiq resume` resumes it") }
    }

    /// The device that dialed `link`.
    private func dialer(of link: any PeerLink) -> DeviceID { link.isOutgoing ? device : link.remoteDevice }

    private func makeHello(for remote: DeviceID) throws -> Ubiq_Wire_Hello {
        var hello = Ubiq_Wire_Hello()
        hello.protocolVersions = protocolVersions
        hello.deviceID = device.rawValue
        hello.deviceName = deviceName
        hello.agentVersion = agentVersion
        hello.containers = try containers.keys.sorted().map { id in
            var offer = Ubiq_Wire_ContainerOffer()
            offer.containerID = id.rawValue
            offer.indexID = try index.containerState(id).indexID
            if let state = try index.peerState(remote, id) {
                offer.peerIndexID = state.indexID
                offer.peerMaxSequence = UInt64(max(0, state.maxSequence))
            }
            return offer
        }
        hello.keyValueStores = try stores.values.sorted { $0.id < $1.id }.map { store in
            var offer = Ubiq_Wire_StoreOffer()
            offer.storeID = store.id.rawValue
            offer.indexID = store.indexID
            if let state = try index.keyValuePeerState(remote, store.id) {
                offer.peerIndexID = state.indexID
                offer.peerMaxSequence = UInt64(max(0, state.maxSequence))
            }
            return offer
        }
        return hello
    }

    /// Peers known since start, with live byte counters.
    public func peers() async -> [PeerRecord] {
        var result: [PeerRecord] = []
        for (device, var record) in records {
            let past = pastBytes[device] ?? (0, 0)
            record.bytesSent = past.sent
            record.bytesReceived = past.received
            if let session = sessions[device] {
                record.bytesSent += session.link.bytesSent
                record.bytesReceived += session.link.bytesReceived
                let name = session.remoteName
                if !name.isEmpty { record.name = name }
            }
            result.append(record)
        }
        return result.sorted { $0.device < $1.device }
    }

    public var connectedDevices: Set<DeviceID> { Set(sessions.keys) }

    /// Sends `envelope` on every open session (an account rotation); returns the peers it
    /// went to. A peer whose send fails is left to catch up on its next connection.
    public func sendToAll(_ envelope: Ubiq_Wire_Envelope) async -> [DeviceID] {
        var sent: [DeviceID] = []
        for (device, session) in sessions {
            do {
                try await session.link.send(envelope)
                sent.append(device)
            } catch {
                logger.info("could not send to a peer", metadata: ["peer": "\(device)", "error": "\(error)"])
            }
        }
        return sent
    }

    func sessions(sharing container: ContainerID) async -> [PeerSession] {
        var result: [PeerSession] = []
        for session in sessions.values where await session.sharedContainers.contains(container) {
            result.append(session)
        }
        return result
    }

    func session(with peer: DeviceID) -> PeerSession? { sessions[peer] }

    /// The peers that take word of pieces held of `version`: connected, sharing its
    /// container, speaking protocol 6.
    func progressRecipients(of version: SwarmVersion) async -> [DeviceID] {
        var peers: [DeviceID] = []
        for session in await sessions(sharing: version.container) where await session.takesProgress {
            peers.append(session.link.remoteDevice)
        }
        return peers
    }

    /// Sends `batch` to `peer`, if it is still connected. A send that fails is dropped: the
    /// connection is ending, and a new one hears what is held at its start.
    func tell(_ peer: DeviceID, _ batch: [SwarmProgress]) async {
        guard let session = sessions[peer] else { return }
        for progress in batch {
            for message in ChunkProgressMapping.messages(progress) {
                try? await session.link.send(Ubiq_Wire_Envelope(.chunkProgress(message)))
            }
        }
    }
}
