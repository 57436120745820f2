import Logging
import ServiceLifecycle
import UbiqModel
import UbiqSync
import UbiqTransport

/// Keeps dialing every place a peer may be: the static addresses from the configuration and
/// those discovery reports. One loop per target dials, hands the link to the engine, and
/// dials again when it ends, backing off while the peer is unreachable. A target with several
/// addresses (mDNS reports every address of a host, a name may resolve to several) is dialled
/// on all of them at once, staggered, and the first to authenticate as the target's device is
/// kept (`PeerTransport.connect(hosts:port:expecting:)`). A target whose device is already
/// connected (it dialed us) is not dialed; a static address's device is known once it has
/// answered.
actor PeerDialer: Service {
    struct Target: Sendable, Equatable {
        /// Addresses or host names, all on `port`.
        var hosts: [String]
        var port: Int
        /// Known for discovered peers; nil for static addresses.
        var device: DeviceID?
    }

    let transport: PeerTransport
    let engine: SyncEngine
    let logger: Logger
    private var loops: [String: (target: Target, task: Task<Void, Never>)] = [:]
    private var running = true

    static let minimumDelay: Duration = .milliseconds(250)
    static let maximumDelay: Duration = .seconds(5)
    /// How often a loop whose device is connected looks whether it still is: a lost
    /// connection is dialed again within this.
    static let connectedCheck: Duration = .milliseconds(250)
    /// A peer that refuses us (no common protocol version) is asked again only this often.
    static let refusedDelay: Duration = .seconds(60)

    init(transport: PeerTransport, engine: SyncEngine, logger: Logger) {
        self.transport = transport
        self.engine = engine
        self.logger = logger
    }

    /// Adds a target, or moves it to a new port (a restarted peer). New addresses for the
    /// same port and device are taken at the next dial, and leave a connection in use alone:
    /// a host's address set changes now and then (an IPv6 address comes or goes).
    func set(_ key: String, _ target: Target) {
        guard running else { return }
        if let loop = loops[key] {
            guard loop.target != target else { return }
            if loop.target.port == target.port && loop.target.device == target.device {
                loops[key]?.target = target
                return
            }
            loop.task.cancel()
        }
        loops[key] = (target, Task { [transport, engine, logger] in
            await Self.dial(target, transport: transport, engine: engine, logger: logger) { [weak self] in
                await self?.hosts(key)
            }
        })
    }

    private func hosts(_ key: String) -> [String]? { loops[key]?.target.hosts }

    func remove(_ key: String) {
        loops.removeValue(forKey: key)?.task.cancel()
    }

    func run() async throws {
        try? await gracefulShutdown()
        running = false
        for loop in loops.values { loop.task.cancel() }
        loops.removeAll()
    }

    /// `hosts` gives the target's addresses as they are at each dial.
    private static func dial(_ target: Target, transport: PeerTransport, engine: SyncEngine, logger: Logger,
                             hosts: @escaping @Sendable () async -> [String]?) async {
        var delay = minimumDelay
        // A static address's device is learned from its certificate on the first connection:
        // from then on it is not dialed while connected either way, so two agents that name
        // each other keep one connection instead of redialing the one they have.
        var device = target.device
        while !Task.isCancelled {
            if let device, await engine.connectedDevices.contains(device) {
                try? await Task.sleep(for: connectedCheck)
                continue
            }
            let addresses = await hosts() ?? target.hosts
            do {
                let connection = try await transport.connect(hosts: addresses, port: target.port, expecting: target.device)
                device = connection.remoteDeviceID
                let agreed = await engine.serve(TransportPeerLink(connection: connection, isOutgoing: true))
                delay = agreed ? minimumDelay : refusedDelay
            } catch {
                logger.debug("peer unreachable", metadata: [
                    "addresses": "\(addresses.joined(separator: " "))", "port": "\(target.port)", "error": "\(error)",
                ])
                delay = min(delay * 2, maximumDelay)
            }
            try? await Task.sleep(for: delay)
        }
    }
}

extension PeerDialer: CustomStringConvertible {
    nonisolated var description: String { "PeerDialer" }
}
