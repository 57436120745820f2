/// Decides when a container's pull passes start. One at a time as a rule: asks that arrive
/// while a pass runs are taken together by the next one, which keeps passes large when
/// index updates come in a stream, and a pass busy applying is not slowed by a second one.
/// A second pass starts only once a change that failed before (its peer let a request time
/// out, say) has waited ``overtakeAfter`` for bytes on being tried again, and it takes only
/// what the first has not taken on (``PathsInFlight``): a transfer that keeps stalling holds
/// up nothing else. A first stall is not overtaken: a peer that is only slow to answer
/// (its reading held up behind a stream of index updates) would fall further behind if this
/// device applied and passed on more changes meanwhile.
struct PullPassSchedule: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// What to do with an ask for a pass.
    enum Decision: Equatable {
        /// Start a pass now.
        case start
        /// Start none now; when `wakeAt` is set, ask again then.
        case wait(wakeAt: Instant?)
    }

    static let maximumPasses = 2
    let overtakeAfter: Duration
    /// Passes under way.
    private(set) var runningCount = 0
    /// An ask came while no pass could start.
    private var deferred = false
    /// A pass left needs that another was applying; one may have changed again meanwhile.
    private var leftBusy = false
    private var wakeAt: Instant?

    init(overtakeAfter: Duration) { self.overtakeAfter = overtakeAfter }

    /// An ask for a pass at `now`; `waitingSince` is since when the retried transfer that has
    /// waited longest for bytes has waited (nil when none is under way).
    mutating func asked(at now: Instant, waitingSince: Instant?) -> Decision {
        if let wakeAt, wakeAt <= now { self.wakeAt = nil }
        guard runningCount > 0 else { return start() }
        if runningCount < Self.maximumPasses, let waitingSince {
            let overtakeAt = waitingSince + overtakeAfter
            if overtakeAt <= now { return start() }
            deferred = true
            guard wakeAt.map({ $0 > overtakeAt }) ?? true else { return .wait(wakeAt: nil) }
            wakeAt = overtakeAt
            return .wait(wakeAt: overtakeAt)
        }
        deferred = true
        return .wait(wakeAt: nil)
    }

    /// Notes that a pass found needs another pass was applying.
    mutating func passLeftNeedsBusy() { leftBusy = true }

    /// Notes that a pass ended; returns whether another pass is due now.
    mutating func ended(tookSome: Bool) -> Bool {
        runningCount -= 1
        let due = deferred || (tookSome && leftBusy)
        if due {
            deferred = false
            if tookSome { leftBusy = false }
        }
        return due
    }

    private mutating func start() -> Decision {
        runningCount += 1
        return .start
    }
}
