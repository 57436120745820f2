import Foundation
import Logging
import Synchronization
import UbiqIndex
import UbiqModel
import UbiqSync

/// Several simulated devices of one account sharing one container, the connections between
/// them, and what the simulator does to them: partitions, crashes, restarts. Devices dial
/// every peer they can reach, as discovery would make them.
public final class SimWorld: Sendable {
    public let scheduler: SimScheduler
    public let devices: [SimDevice]
    public let container: ContainerID
    let logger: Logger
    /// A path whose state on every device is logged after each step (`UBIQ_SIM_WATCH`).
    let watched = ProcessInfo.processInfo.environment["UBIQ_SIM_WATCH"].flatMap { try? RelativePath($0) }

    private struct Pair: Hashable {
        let low: Int
        let high: Int
        init(_ a: Int, _ b: Int) { (low, high) = (min(a, b), max(a, b)) }
    }

    private struct State {
        var connections: [Pair: [SimConnection]] = [:]
        var partitioned: Set<Pair> = []
        var nextConnection = 1
    }

    private let state = Mutex(State())
    /// How often a device looks for peers it is not connected to.
    static let dialInterval = Duration.milliseconds(500)

    /// The devices' indexes are SQLite files in `directory` when given (to look into after a
    /// run), else in memory.
    public init(seed: UInt64, devices count: Int, directory: String? = nil, logger: Logger? = nil) throws {
        scheduler = SimScheduler(seed: seed)
        container = try ContainerID("SIMTEAM.com.example.sim")
        self.logger = logger ?? Logger(label: "ubiq.sim", factory: { _ in SwiftLogNoOpLogHandler() })
        devices = try (0..<count).map { [scheduler, container] number in
            try SimDevice(number: number, container: container, indexPath: directory.map { "\($0)/device-\(number).sqlite" },
                          scheduler: scheduler)
        }
    }

    /// Boots every device and starts dialing.
    public func start() {
        for device in devices { device.boot(scheduler: scheduler, logger: logger) }
        dialRound()
    }

    private func dialRound() {
        for a in devices.indices {
            for b in devices.indices where a < b && devices[a].isUp && devices[b].isUp {
                let pair = Pair(a, b)
                let idle = state.withLock { !$0.partitioned.contains(pair) && ($0.connections[pair] ?? []).isEmpty }
                guard idle else { continue }
                connect(dialer: a, to: b)
                // Now and then both dial at once, as two agents that name each other do.
                if scheduler.draw(below: 8) == 0 { connect(dialer: b, to: a) }
            }
        }
        scheduler.after(Self.dialInterval) { [self] in dialRound() }
    }

    private func connect(dialer a: Int, to b: Int) {
        guard let lifeA = devices[a].life, let lifeB = devices[b].life else { return }
        let pair = Pair(a, b)
        let connection = state.withLock { state in
            defer { state.nextConnection += 1 }
            let connection = SimConnection(id: state.nextConnection, scheduler: scheduler, latencyMicroseconds: 50...3000)
            state.connections[pair, default: []].append(connection)
            return connection
        }
        let dialing = SimLink(connection: connection, side: 0, remoteDevice: devices[b].id)
        let accepting = SimLink(connection: connection, side: 1, remoteDevice: devices[a].id)
        for (life, link) in [(lifeA, dialing), (lifeB, accepting)] {
            Task(executorPreference: life.executor) { [self] in
                await life.engine.serve(link)
                ended(connection, pair: pair)
            }
        }
    }

    private func ended(_ connection: SimConnection, pair: Pair) {
        connection.close(reason: "a session ended")
        state.withLock { $0.connections[pair]?.removeAll { $0 === connection } }
    }

    private func cut(_ pair: Pair, reason: String) {
        let cut = state.withLock { $0.connections.removeValue(forKey: pair) ?? [] }
        for connection in cut { connection.close(reason: reason) }
    }

    // MARK: what the simulator does to the world

    /// Cuts the connections between `a` and `b` and keeps them apart until healed.
    public func partition(_ a: Int, _ b: Int) {
        state.withLock { _ = $0.partitioned.insert(Pair(a, b)) }
        cut(Pair(a, b), reason: "partition")
    }

    public func healAll() {
        state.withLock { $0.partitioned.removeAll() }
    }

    /// Resets every connection of `a` (they are dialed again soon).
    public func reset(_ a: Int) {
        for b in devices.indices where b != a { cut(Pair(a, b), reason: "reset") }
    }

    /// Kills device `a`: its engine stops between two jobs and its disk loses what was not
    /// durable; peers see its connections reset.
    public func crash(_ a: Int) {
        devices[a].crash(scheduler: scheduler)
        reset(a)
    }

    public func restart(_ a: Int) {
        guard !devices[a].isUp else { return }
        devices[a].boot(scheduler: scheduler, logger: logger)
    }

    /// Moves device `a`'s wall clock by `offset` (a clock set wrong, or corrected).
    public func jumpWallClock(of a: Int, by offset: Duration) {
        devices[a].wallOffset.move(by: offset.nanoseconds)
    }

    /// Whether `a` and `b` are connected now.
    public func connected(_ a: Int, _ b: Int) -> Bool {
        state.withLock { !($0.connections[Pair(a, b)] ?? []).isEmpty }
    }
}
