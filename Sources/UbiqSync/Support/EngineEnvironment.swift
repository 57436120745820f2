import Foundation
import Synchronization
import UbiqModel

/// Time as the engine sees it. The agent runs on the system's clocks; the deterministic
/// simulator gives its own, whose time moves only when the simulated world is idle.
public protocol EngineClock: Sendable {
    /// Monotonic time, for timeouts, retries and pass scheduling.
    var now: ContinuousClock.Instant { get }
    /// Wall-clock time in nanoseconds since 1970, for what is stored (a kept version's age).
    var wallNanoseconds: Int64 { get }
    /// Returns at `deadline`; throws `CancellationError` when the task is cancelled first.
    func sleep(until deadline: ContinuousClock.Instant) async throws
}

extension EngineClock {
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now.advanced(by: duration))
    }
}

/// The system's clocks: `ContinuousClock` and the wall clock (run `wallOffset` nanoseconds
/// ahead, where a test ages what is stored).
public struct SystemClock: EngineClock {
    public let wallOffset: Int64

    public init(wallOffset: Int64 = 0) { self.wallOffset = wallOffset }
    public var now: ContinuousClock.Instant { .now }
    public var wallNanoseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1e9) + wallOffset }
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}

/// Where the engine's work runs: the tasks it starts prefer this executor, and each of its
/// actors gets a serial executor over it. The agent uses a ``WorkerPool``; the simulator
/// one thread whose next job a seeded generator picks.
public protocol EngineExecutor: TaskExecutor {
    func makeSerialExecutor() -> any SerialExecutor
}

extension WorkerPool: EngineExecutor {
    public func makeSerialExecutor() -> any SerialExecutor { serialExecutor() }
}

/// The engine's chance choices (which peer is asked first), seeded in the simulator so a run
/// can be replayed.
public final class EngineRandom: Sendable {
    private let state: Mutex<UInt64?>

    /// `seed` nil: the system's generator.
    public init(seed: UInt64? = nil) { state = Mutex(seed) }

    public func shuffled<T>(_ elements: [T]) -> [T] {
        let order: [Int] = state.withLock { seed in
            guard let start = seed else { return Array(elements.indices).shuffled() }
            var generator = SplitMix64(seed: start)
            defer { seed = generator.state }
            return Array(elements.indices).shuffled(using: &generator)
        }
        return order.map { elements[$0] }
    }
}

/// Everything the engine takes from the world besides its disk, index and links: time,
/// threads and chance. One value, so the simulator can replace all three at once.
public struct EngineEnvironment: Sendable {
    public var clock: any EngineClock
    public var executor: any EngineExecutor
    public var random: EngineRandom

    public init(clock: any EngineClock = SystemClock(), executor: any EngineExecutor = WorkerPool.engine,
                random: EngineRandom = EngineRandom()) {
        self.clock = clock
        self.executor = executor
        self.random = random
    }

    /// The agent's: system clocks, the engine's worker pool, the system's generator.
    public static let live = EngineEnvironment()
}
