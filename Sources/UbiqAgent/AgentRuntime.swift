import Foundation
import Logging
import ServiceLifecycle
import UbiqConfig
import UbiqDiscovery
import UbiqControl
import UbiqFileSystem
import UbiqIdentity
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTransport
import UbiqWire

/// The one place that builds the agent: identity, index, containers, engine, transport and
/// control socket, run together in a `ServiceGroup` until SIGTERM or SIGINT.
public struct AgentRuntime: Sendable {
    public static let version = "0.1.0"

    let configuration: AgentConfiguration
    let logger: Logger

    public init(configuration: AgentConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let config = configuration
        let state = StateDirectory(path: config.stateDirectory)
        let (identity, created) = try IdentityStore(state: state).loadOrCreate(deviceName: config.deviceName)
        var logger = logger
        logger[metadataKey: "device"] = "\(identity.deviceID)"

        let index = try SyncIndex(path: config.stateDirectory + "/index.sqlite")
        let clockOffset = TestHooks.clockOffsetMilliseconds
        let environment = clockOffset == 0 ? EngineEnvironment.live : EngineEnvironment(clock: SystemClock(wallOffset: clockOffset * 1_000_000))
        var containers: [ContainerSync] = []
        for settings in config.containers {
            let disk = FileSystemDisk(settings: settings, logger: logger)
            let container = ContainerSync(id: settings.id, disk: disk, index: index, device: identity.deviceID,
                                          onDemand: settings.download == .onDemand, environment: environment, logger: logger)
            await container.setHistory(settings.history.retention(fileSystemBytes: FileSystemDisk.capacity(of: settings.path)),
                                       prunesByItself: !TestHooks.pruneOnlyWhenAsked)
            container.setIgnoreSettings(config: settings.ignore, defaults: settings.ignoreDefaults)
            container.setMode(settings.mode)
            containers.append(container)
        }
        let stores = try config.kvstores.map { raw in
            try KeyValueStore(id: try KeyValueStoreID(raw), index: index, device: identity.deviceID,
                              account: identity.identityToken, limits: config.keyValueLimits,
                              physicalTime: { Int64(Date().timeIntervalSince1970 * 1000) + clockOffset }, logger: logger)
        }
        let signatures = try AccountSignatures(caCertificatePEM: identity.caCertificatePEM)
        let devices = try AccountDevices(
            me: DeviceRecord(id: identity.deviceID, name: config.deviceName, containers: config.containers.map(\.id),
                             describedAt: Int64(Date().timeIntervalSince1970 * 1000) + clockOffset),
            index: index, verify: { signatures.isValid($0) }, logger: logger)
        let engine = SyncEngine(device: identity.deviceID, deviceName: config.deviceName, agentVersion: Self.version,
                                index: index, containers: containers, stores: stores,
                                protocolVersions: TestHooks.protocolVersions ?? Handshake.supportedVersions, devices: devices, logger: logger)
        try await engine.loadPause()
        let leases = FileLeases()
        for container in containers {
            await container.setFetcher(EngineChunkFetcher(engine: engine))
            container.setPeerHistories(EnginePeerHistories(engine: engine))
            await container.setLeases(leases)
            try await container.start()
        }

        let transport = try PeerTransport(identity: identity, logger: logger, refusing: { devices.isRevoked($0) })
        let limits = BandwidthLimits(send: config.maxSendKiBPerSecond.map { Int64($0) * 1024 },
                                     receive: config.maxReceiveKiBPerSecond.map { Int64($0) * 1024 })
        var services: [any Service] = []
        var listening: [String] = []
        var listeners: [PeerListener] = []
        for opened in try await PeerListening.open(config, transport: transport, logger: logger) {
            listening.append(opened.address)
            listeners.append(opened.listener)
            services.append(PeerAcceptor(listener: opened.listener, engine: engine, limits: limits))
        }
        let dialer = PeerDialer(transport: transport, engine: engine, limits: limits, logger: logger)
        for peer in config.peers {
            await dialer.set("static \(peer)", .init(hosts: [peer.host], port: peer.port, device: nil))
        }
        services.append(dialer)
        services.append(DeviceRemovalService(devices: devices, engine: engine))
        var discovery: DiscoveryService?
        if config.discovery, let port = listeners.first?.localPort {
            let record = try DiscoveryRecord(deviceID: identity.deviceID, accountTag: try AccountTag(identity.accountTag),
                                             protocolVersions: engine.protocolVersions, port: UInt16(port))
            discovery = DiscoveryService(record: record, dialer: dialer, logger: logger)
            services.append(discovery!)
        }
        for (container, settings) in zip(containers, config.containers) {
            services.append(ContainerService(container: container, root: settings.path,
                                             options: config.watcherOptions, logger: logger))
        }
        let status = AgentStatusSource(identity: identity, deviceName: config.deviceName, engine: engine, containers: containers,
                                       roots: Dictionary(uniqueKeysWithValues: config.containers.map { ($0.id, $0.path) }),
                                       listening: listening, discovery: { [discovery] in await discovery?.state ?? "disabled" },
                                       limits: limits)
        let onDemand = OnDemandMethods(status: status)
        let control = ControlServer(configuration: .init(socketPath: config.socketPath),
                                    handler: AgentControlHandler(status: status, keyValue: KeyValueMethods(stores: engine.stores),
                                                                coordination: CoordinationMethods(status: status, leases: leases, onDemand: onDemand),
                                                                events: EventMethods(status: status),
                                                                onDemand: onDemand,
                                                                queries: QueryMethods(status: status),
                                                                devices: DeviceMethods(devices: devices, engine: engine,
                                                                                       account: try IdentityStore(state: state).loadAccount(),
                                                                                       now: { Int64(Date().timeIntervalSince1970 * 1000) + clockOffset })),
                                    logger: logger)
        services.append(ControlService(server: control))

        printBanner(identity: identity, created: created, listening: listening)
        logger.info("agent started", metadata: ["listen": "\(listening)", "peers": "\(config.peers.map(\.description))"])
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0) },
            cancellationSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }

    private func printBanner(identity: DeviceIdentity, created: Bool, listening: [String]) {
        var lines = ["ubiqd \(Self.version)"]
        if created { lines.append("created a new account and device identity in \(configuration.stateDirectory)") }
        lines.append("identity token: \(identity.identityToken)")
        lines.append("device: \(identity.deviceID) (\(configuration.deviceName))")
        for container in configuration.containers {
            lines.append("container \(container.id): \(container.path)")
        }
        for store in configuration.kvstores { lines.append("key-value store \(store)") }
        lines.append("socket: \(configuration.socketPath)")
        for address in listening { lines.append("listening: \(address)") }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
