import Logging
import Synchronization
import UbiqIndex
import UbiqModel
import UbiqSync

/// One simulated workstation: a disk and an index that outlive crashes, and the engine of
/// its current life (container, sessions, leases), which a crash throws away.
public final class SimDevice: Sendable {
    public let number: Int
    public let id: DeviceID
    public let disk: SimulatedDisk
    public let index: SyncIndex
    public let container: ContainerID
    /// How far this device's wall clock is set off (clock jumps), in nanoseconds.
    let wallOffset = WallOffset()

    /// The engine of one life of the device.
    struct Life: Sendable {
        var executor: SimExecutor
        var sync: ContainerSync
        var engine: SyncEngine
        var leases: FileLeases
    }

    private let current = Mutex<Life?>(nil)
    /// Every device lists the same package extensions, as the design asks.
    static let packages = PackageRules(extensions: ["pkg"])

    /// The index is a SQLite file at `indexPath` when given, else in memory.
    init(number: Int, container: ContainerID, indexPath: String?, scheduler: SimScheduler) throws {
        self.number = number
        self.container = container
        id = DeviceID(publicKeyDigest: (0..<20).map { UInt8(truncatingIfNeeded: $0 * 31 + number * 7 + 1) })
        index = try indexPath.map { try SyncIndex(path: $0) } ?? SyncIndex.inMemory()
        let clock = SimClock(scheduler: scheduler, wallOffset: { [wallOffset] in wallOffset.value })
        disk = SimulatedDisk(packages: Self.packages, now: { clock.wallNanoseconds })
    }

    var life: Life? { current.withLock { $0 } }
    public var isUp: Bool { life != nil }

    /// Starts a new life: new engine objects over the same disk and index, as after a restart.
    func boot(scheduler: SimScheduler, logger: Logger) {
        let executor = scheduler.beginLife(of: number)
        let environment = EngineEnvironment(clock: SimClock(scheduler: scheduler, wallOffset: { [wallOffset] in wallOffset.value }),
                                            executor: executor, random: EngineRandom(seed: UInt64(scheduler.draw(below: Int.max))))
        var logger = logger
        logger[metadataKey: "device"] = "\(number)"
        let sync = ContainerSync(id: container, disk: disk, index: index, device: id, environment: environment, logger: logger)
        let engine = SyncEngine(device: id, deviceName: "sim-\(number)", agentVersion: "sim", index: index, containers: [sync],
                                environment: environment, logger: logger)
        let leases = FileLeases(environment: environment)
        current.withLock { $0 = Life(executor: executor, sync: sync, engine: engine, leases: leases) }
        Task(executorPreference: executor) {
            await sync.setFetcher(EngineChunkFetcher(engine: engine))
            sync.setPeerHistories(EnginePeerHistories(engine: engine))
            await sync.setLeases(leases)
            await sync.setDeletionHold(over: Agitator.holdDeletionsOver)
            do { try await sync.start() } catch {
                logger.error("simulated container did not start", metadata: ["error": "\(error)"])
                return
            }
            await sync.run()
        }
    }

    /// Ends the current life at once: its jobs never run again, and whatever was not
    /// durable on the disk is gone.
    func crash(scheduler: SimScheduler) {
        scheduler.endLife(of: number)
        current.withLock { $0 = nil }
        disk.crash()
    }

    /// Tells the engine what a client changed, as the file watcher would.
    func changed(_ paths: Set<RelativePath?>) {
        guard let life else { return }
        Task(executorPreference: life.executor) { await life.sync.localChanges(paths) }
    }
}

/// A device's wall-clock offset, shared by the clocks of all its lives.
final class WallOffset: Sendable {
    private let nanoseconds = Mutex<Int64>(0)
    var value: Int64 { nanoseconds.withLock { $0 } }
    func move(by delta: Int64) { nanoseconds.withLock { $0 += delta } }
}
