import Foundation
import Logging
import ServiceLifecycle
import UbiqConfig
import UbiqControlAPI
import UbiqDiscovery
import UbiqIdentity
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTransport
import UbiqWire

/// Everything the agent runs for one signed-in account: index, containers, key-value stores,
/// engine, transport, discovery, and the control methods that need them. Built at each
/// sign-in (and at start) and stopped at sign-out; the control socket outlives it.
struct SyncSession: Sendable {
    let identity: DeviceIdentity
    let index: SyncIndex
    let services: [any Service]
    let methods: AccountMethods
    let listening: [String]
    let stores: [KeyValueStore]

    static func build(_ config: AgentConfiguration, identity: DeviceIdentity, host: AgentHost, logger: Logger) async throws -> SyncSession {
        let store = host.store
        var logger = logger
        logger[metadataKey: "device"] = "\(identity.deviceID)"
        let index = try SyncIndex(path: config.stateDirectory + "/index.sqlite")
        let clockOffset = TestHooks.clockOffsetMilliseconds
        let environment = clockOffset == 0 ? EngineEnvironment.live : EngineEnvironment(clock: SystemClock(wallOffset: clockOffset * 1_000_000))
        var containers: [ContainerSync] = []
        var containerFiles: [ContainerID: RecordStores.Container] = [:]
        var synced: [ContainerSettings] = []
        var refused: [ContainerNotSynced] = []
        for settings in config.containers {
            if let owner = SignedOutState.owner(ofContainerAt: settings.path), owner != identity.identityToken {
                let reason = "the folder belongs to another account (\(owner.prefix(16))); move it away to sync this container with this account"
                logger.error("container not synced: its folder belongs to another account",
                             metadata: ["container": "\(settings.id)", "path": "\(settings.path)", "account": "\(owner.prefix(16))"])
                refused.append(ContainerNotSynced(id: settings.id, path: settings.path, reason: reason))
                continue
            }
            synced.append(settings)
            let disk = FileSystemDisk(settings: settings, packages: PackageRules(extensions: config.packageExtensions), logger: logger)
            let container = ContainerSync(id: settings.id, disk: disk, index: index, device: identity.deviceID,
                                          account: identity.identityToken, onDemand: settings.download == .onDemand, environment: environment, logger: logger)
            await container.setHistory(settings.history.retention(fileSystemBytes: FileSystemDisk.capacity(of: settings.path)),
                                       prunesByItself: !TestHooks.pruneOnlyWhenAsked)
            container.setIgnoreSettings(config: settings.ignore, defaults: settings.ignoreDefaults)
            container.setMode(settings.mode)
            await container.setDeletionHold(over: settings.holdDeletionsOver)
            containers.append(container)
            containerFiles[settings.id] = RecordStores.Container(sync: container, files: disk.files)
        }
        let stores = try config.kvstores.map { raw in
            try KeyValueStore(id: try KeyValueStoreID(raw), index: index, device: identity.deviceID,
                              account: identity.identityToken, limits: config.keyValueLimits,
                              physicalTime: { Int64(Date().timeIntervalSince1970 * 1000) + clockOffset }, logger: logger)
        }
        try RevocationCarryOver.run(index: index, store: store, identity: identity, logger: logger)
        let signatures = try AccountSignatures(caCertificatePEM: identity.caCertificatePEM)
        let devices = try AccountDevices(
            me: DeviceRecord(id: identity.deviceID, name: config.deviceName, containers: synced.map(\.id),
                             describedAt: Int64(Date().timeIntervalSince1970 * 1000) + clockOffset,
                             publicKey: try KeyDigests.subjectPublicKeyInfo(certificateDER: identity.certificateDER)),
            index: index, verify: { signatures.isValid($0) }, logger: logger)
        let engine = SyncEngine(device: identity.deviceID, deviceName: config.deviceName, agentVersion: AgentRuntime.version,
                                index: index, containers: containers, stores: stores,
                                protocolVersions: TestHooks.protocolVersions ?? Handshake.supportedVersions, devices: devices, logger: logger)
        try await engine.loadPause()
        let leases = FileLeases()
        for container in containers {
            await container.setFetcher(EngineChunkFetcher(engine: engine))
            if TestHooks.servesNothing { container.refuseServing() }
            container.setPeerHistories(EnginePeerHistories(engine: engine))
            await container.setLeases(leases)
            try await container.start()
        }
        // A folder that is not there now is bound when it is back (its marker names the account too).
        for (container, settings) in zip(containers, synced) where container.isAvailable {
            try SignedOutState.bind(containerAt: settings.path, to: identity.identityToken)
        }

        // A device that missed a rotation is taken only for its hand-over, and only if the
        // rotation kept it.
        let rotationMembers = try store.rotations().last?.memberIDs() ?? []
        let transport = try PeerTransport(identity: identity, logger: logger, refusing: { device, standing in
            devices.isRevoked(device) || (standing == .behind && !rotationMembers.contains(device))
        })
        let intake = RotationIntake(take: { try await host.takeRotations($0) }, isRevoked: { devices.isRevoked($0) })
        let handOver = RotationHandOver(store: store, intake: intake, logger: logger)
        let limits = await BandwidthLimits(config)
        var services: [any Service] = []
        var listening: [String] = []
        var listeners: [PeerListener] = []
        for opened in try await PeerListening.open(config, transport: transport, logger: logger) {
            listening.append(opened.address)
            listeners.append(opened.listener)
            services.append(PeerAcceptor(listener: opened.listener, engine: engine, limits: limits, handOver: handOver))
        }
        await devices.describeMe(addresses: ReachableAddresses.of(listening: listening))
        let dialer = PeerDialer(transport: transport, engine: engine, limits: limits, handOver: handOver, logger: logger)
        for peer in config.peers {
            await dialer.set("static \(peer)", .init(hosts: [peer.host], port: peer.port, device: nil))
        }
        // Where the inviting device syncs, as the join learnt it: found without mDNS.
        for raw in RememberedPeers(state: store.state).load() where !config.peers.contains(where: { $0.description == raw }) {
            guard let peer = try? HostPort(raw) else { continue }
            await dialer.set("remembered \(peer)", .init(hosts: [peer.host], port: peer.port, device: nil))
        }
        services.append(dialer)
        services.append(DeviceRemovalService(devices: devices, engine: engine))
        services.append(RotationService(devices: devices, intake: intake, logger: logger))
        services.append(SubscriptionEnding(containers: containers, stores: stores))
        let recordStores = RecordStores(containers: containerFiles, stateDirectory: config.stateDirectory, account: identity.identityToken,
                                        device: identity.deviceID, wallMilliseconds: { Int64(Date().timeIntervalSince1970 * 1000) + clockOffset },
                                        leases: leases, devices: devices, logger: logger)
        services.append(recordStores)
        var discovery: DiscoveryService?
        if config.discovery, let port = listeners.first?.localPort {
            let record = try DiscoveryRecord(deviceID: identity.deviceID, accountTag: try AccountTag(identity.accountTag),
                                             protocolVersions: engine.protocolVersions, port: UInt16(port))
            discovery = DiscoveryService(record: record, dialer: dialer, logger: logger)
            services.append(discovery!)
        }
        let watches = WatchStates()
        for (container, settings) in zip(containers, synced) {
            services.append(ContainerService(container: container, root: settings.path,
                                             options: config.watcherOptions, watches: watches, logger: logger))
        }
        let status = AgentStatusSource(identity: identity, deviceName: config.deviceName, engine: engine, containers: containers,
                                       roots: Dictionary(uniqueKeysWithValues: synced.map { ($0.id, $0.path) }),
                                       listening: listening, discovery: { [discovery] in await discovery?.state ?? "disabled" },
                                       limits: limits, notSynced: refused, recordStores: recordStores,
                                       keyValueStores: config.kvstores, watches: watches)
        let onDemand = OnDemandMethods(status: status)
        var announce: (@Sendable (DiscoveryRecord.Invitation?) async -> Void)?
        if let discovery { announce = { await discovery.announce($0) } }
        let invites = JoinInvites(identity: identity, store: store, devices: devices, port: config.joinPort,
                                  syncPorts: listeners.map(\.localPort).filter { $0 > 0 }, logger: logger, announce: announce)
        services.append(invites)
        let methods = AccountMethods(
            status: status, keyValue: KeyValueMethods(stores: engine.stores), records: RecordMethods(stores: recordStores, status: status),
            coordination: CoordinationMethods(status: status, leases: leases, onDemand: onDemand),
            events: EventMethods(status: status), onDemand: onDemand, queries: QueryMethods(status: status),
            devices: DeviceMethods(devices: devices, engine: engine, account: try store.loadAccount(),
                                   now: { Int64(Date().timeIntervalSince1970 * 1000) + clockOffset },
                                   invites: invites, listening: listening,
                                   joinHost: (config.listen.first ?? AgentConfiguration.defaultListen[0]).host,
                                   discovery: config.discovery, host: host))
        return SyncSession(identity: identity, index: index, services: services, methods: methods, listening: listening, stores: stores)
    }
}
