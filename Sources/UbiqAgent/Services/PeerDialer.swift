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
    let limits: BandwidthLimits
    let logger: Logger
    /// For a peer of another generation of the account CA: the rotation's hand-over.
    let handOver: RotationHandOver
    private var loops: [String: Loop] = [:]
    private var nextLoop: UInt64 = 0
    private var running = true

    /// One target's dial loop; `number` tells it from a later loop for the same key.
    private struct Loop {
        var target: Target
        let number: UInt64
        let task: Task<Void, Never>
    }

    static let minimumDelay: Duration = .milliseconds(250)
    static let maximumDelay: Duration = .seconds(5)
    /// How often a loop whose device is connected looks whether it still is: a lost
    /// connection is dialed again within this.
    static let connectedCheck: Duration = .milliseconds(250)
    /// A peer that refuses us (no common protocol version) is asked again only this often; one
    /// that closes before its hello (paused) is dialed as an unreachable one is.
    static let refusedDelay: Duration = .seconds(60)
    /// How long a device waits before first dialing a discovered peer with a smaller device
    /// ID: two devices that find each other at once dial each other at once, and the link the
    /// smaller one dials is the one both keep (`LinkChoice`); waiting for it spares a link
    /// that would be made and then replaced.
    static let yieldToSmallerDialer: Duration = .seconds(1)

    init(transport: PeerTransport, engine: SyncEngine, limits: BandwidthLimits, handOver: RotationHandOver, logger: Logger) {
        self.handOver = handOver
        self.transport = transport
        self.engine = engine
        self.limits = limits
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
        nextLoop += 1
        let number = nextLoop
        loops[key] = Loop(target: target, number: number, task: Task { [transport, engine, handOver, logger] in
            await Self.dial(target, transport: transport, engine: engine, limits: limits, handOver: handOver, logger: logger) { [weak self] in
                await self?.hosts(key, loop: number)
            }
        })
    }

    /// The addresses loop `number` is to dial now; nil once it is no longer the key's loop.
    private func hosts(_ key: String, loop number: UInt64) -> [String]? {
        guard let loop = loops[key], loop.number == number else { return nil }
        return loop.target.hosts
    }

    /// Stops dialing a target. A connection it made stays until it ends: mDNS says a host
    /// left when its announcements stop or one of its addresses goes, while the link in use
    /// may work on.
    func remove(_ key: String) {
        loops.removeValue(forKey: key)
    }

    func run() async throws {
        try? await gracefulShutdown()
        running = false
        for loop in loops.values { loop.task.cancel() }
        loops.removeAll()
    }

    /// `hosts` gives the target's addresses as they are at each dial; nil ends the loop.
    private static func dial(_ target: Target, transport: PeerTransport, engine: SyncEngine, limits: BandwidthLimits,
                             handOver: RotationHandOver, logger: Logger,
                             hosts: @escaping @Sendable () async -> [String]?) async {
        var delay = minimumDelay
        // A static address's device is learned from its certificate on the first connection:
        // from then on it is not dialed while connected either way, so two agents that name
        // each other keep one connection instead of redialing the one they have.
        var device = target.device
        if let device, device < engine.device {
            try? await Task.sleep(for: yieldToSmallerDialer)
        }
        while !Task.isCancelled {
            guard let addresses = await hosts() else { return }
            if await engine.paused {
                delay = minimumDelay
                try? await Task.sleep(for: connectedCheck)
                continue
            }
            if let device, await engine.connectedDevices.contains(device) {
                try? await Task.sleep(for: connectedCheck)
                continue
            }
            do {
                let connection = try await transport.connect(hosts: addresses, port: target.port, expecting: target.device)
                device = connection.remoteDeviceID
                if connection.standing != .member {
                    await handOver.run(connection)
                    delay = minimumDelay
                } else {
                    switch await engine.serve(TransportPeerLink(connection: connection, isOutgoing: true, limits: limits)) {
                    case .agreed: delay = minimumDelay
                    case .refused: delay = refusedDelay
                    // A paused peer: dialed as an unreachable one is, so its resume is noticed within seconds.
                    case .closedBeforeHello: delay = min(delay * 2, maximumDelay)
                    }
                }
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
