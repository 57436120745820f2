import Synchronization
import UbiqModel

/// The simulated world's only thread of control. Every job of every simulated device, every
/// timer and every message in flight passes through here; a seeded generator picks which
/// ready job runs next, and time moves only when no job is ready, straight to the next
/// timer. So one seed replays one run exactly, and an idle minute costs nothing.
public final class SimScheduler: Sendable {
    /// A job waiting for its turn, with the executor it must run on.
    enum Ready {
        case task(UnownedJob, SimExecutor)
        case serial(UnownedJob, SimSerialExecutor)

        var owner: SimExecutor {
            switch self {
            case .task(_, let executor): executor
            case .serial(_, let serial): serial.owner
            }
        }
    }

    /// Something due at an instant of simulated time.
    enum Due {
        case resume(CheckedContinuation<Void, any Error>)
        case action(@Sendable () -> Void)
    }


    struct State {
        var ready: [Ready] = []
        var timers = TimerQueue<Due>()
        /// Timers cancelled before they were set (a task cancelled while it began to sleep).
        var cancelledEarly: Set<UInt64> = []
        var nextTimerID: UInt64 = 1
        var now: Duration = .zero
        var random: SplitMix64
        /// Each device's current life; jobs of an earlier life (before a crash) never run.
        var lives: [Int: Int] = [:]
        var jobsRun = 0
    }

    let state: Mutex<State>
    /// What `ContinuousClock.Instant`s are counted from.
    let origin = ContinuousClock.now

    public init(seed: UInt64) {
        state = Mutex(State(random: SplitMix64(seed: seed)))
    }

    /// Simulated time since the world began.
    public var now: Duration { state.withLock { $0.now } }
    public var jobsRun: Int { state.withLock { $0.jobsRun } }

    // MARK: lives

    /// The executor of a device's next life; jobs of its earlier lives are dropped.
    func beginLife(of device: Int) -> SimExecutor {
        let life = state.withLock { state in
            let life = (state.lives[device] ?? 0) + 1
            state.lives[device] = life
            return life
        }
        return SimExecutor(scheduler: self, device: device, life: life)
    }

    /// Ends a device's life at once, as a crash does: its jobs are dropped, never run.
    func endLife(of device: Int) {
        state.withLock { state in
            state.lives[device, default: 0] += 1
            let lives = state.lives
            state.ready.removeAll { lives[$0.owner.device] != $0.owner.life }
        }
    }

    private static func isAlive(_ executor: SimExecutor, in state: State) -> Bool {
        state.lives[executor.device] == executor.life
    }

    func enqueue(_ ready: Ready) {
        state.withLock { state in
            guard Self.isAlive(ready.owner, in: state) else { return }
            state.ready.append(ready)
        }
    }

    // MARK: timers

    func newTimerID() -> UInt64 {
        state.withLock { state in
            defer { state.nextTimerID += 1 }
            return state.nextTimerID
        }
    }

    /// Runs `action` (outside any job) once `delay` of simulated time has passed.
    public func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) {
        state.withLock { state in
            let id = state.nextTimerID
            state.nextTimerID += 1
            state.timers.insert(.action(action), at: state.now + max(delay, .zero), id: id)
        }
    }

    /// Resumes `continuation` at `at`, unless the timer was cancelled first.
    func resume(_ continuation: CheckedContinuation<Void, any Error>, at: Duration, id: UInt64) {
        let early = state.withLock { state in
            if state.cancelledEarly.remove(id) != nil { return true }
            state.timers.insert(.resume(continuation), at: at, id: id)
            return false
        }
        if early { continuation.resume(throwing: CancellationError()) }
    }

    func cancelTimer(_ id: UInt64) {
        let removed = state.withLock { state in
            guard let due = state.timers.remove(id) else {
                state.cancelledEarly.insert(id)
                return nil as Due?
            }
            return due
        }
        if case .resume(let continuation)? = removed { continuation.resume(throwing: CancellationError()) }
    }

    // MARK: running

    /// What one step did.
    enum Step {
        case ranJob
        case firedTimer
        case idle
    }

    /// Simulated time one job takes, so that time passes while the world is busy and timers
    /// fire between jobs as they would.
    static let jobCost = Duration.microseconds(5)

    /// Fires a timer that is due; else runs one ready job, picked by the seeded generator;
    /// with none ready, moves time to the earliest timer and fires it.
    func step() -> Step {
        enum Next {
            case job(Ready)
            case timer(Due)
            case nothing
        }
        let next: Next = state.withLock { state in
            if let at = state.timers.earliest(), at <= state.now || state.ready.isEmpty, let (_, due) = state.timers.popEarliest() {
                state.now = max(state.now, at)
                return .timer(due)
            }
            guard !state.ready.isEmpty else { return .nothing }
            let index = Int(state.random.next() % UInt64(state.ready.count))
            state.ready.swapAt(index, state.ready.count - 1)
            state.jobsRun += 1
            state.now += Self.jobCost
            return .job(state.ready.removeLast())
        }
        switch next {
        case .job(.task(let job, let executor)):
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
            return .ranJob
        case .job(.serial(let job, let serial)):
            job.runSynchronously(isolatedTo: serial.asUnownedSerialExecutor(), taskExecutor: serial.owner.asUnownedTaskExecutor())
            return .ranJob
        case .timer(let due):
            switch due {
            case .resume(let continuation): continuation.resume()
            case .action(let action): action()
            }
            return .firedTimer
        case .nothing:
            return .idle
        }
    }

    /// Runs until `duration` of simulated time has passed (or nothing at all is left to do).
    public func run(for duration: Duration) {
        let end = now + duration
        while true {
            let (hasReady, nextTimer, now) = state.withLock { state in
                (!state.ready.isEmpty, state.timers.earliest(), state.now)
            }
            if now >= end { return }
            if !hasReady, nextTimer.map({ $0 > end }) ?? true {
                state.withLock { $0.now = max($0.now, end) }
                return
            }
            _ = step()
        }
    }

    /// Runs until `condition` holds, checked every `every` of simulated time; false when
    /// `limit` passed first.
    public func run(until condition: () -> Bool, every: Duration = .seconds(1), limit: Duration) -> Bool {
        let end = now + limit
        while now < end {
            if condition() { return true }
            run(for: every)
        }
        return condition()
    }

    /// A number drawn from the world's generator, for the simulator's own choices.
    public func draw(below bound: Int) -> Int {
        precondition(bound > 0)
        return state.withLock { Int($0.random.next() % UInt64(bound)) }
    }
}
