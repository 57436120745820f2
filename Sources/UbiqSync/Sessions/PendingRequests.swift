/// The requests a session has sent to its peer and not yet seen answered: IDs, the waiter
/// of each, and when one last went unanswered. A value with no clock or I/O of its own, so
/// its rules are tested alone; the session executes what it returns.
struct PendingRequests<Waiter, Instant: InstantProtocol<Duration>> {
    private var nextID: UInt64 = 1
    private var waiting: [UInt64: Waiter] = [:]
    /// When a request last timed out.
    private var lastTimeout: Instant?
    /// How long a peer that let a request time out counts as stalled.
    let stallMemory: Duration

    init(stallMemory: Duration) { self.stallMemory = stallMemory }

    var count: Int { waiting.count }

    /// A fresh ID for a request about to be sent.
    mutating func open(_ waiter: Waiter) -> UInt64 {
        let id = nextID
        nextID += 1
        waiting[id] = waiter
        return id
    }

    /// The waiter for an answer with `id`; nil for an ID not waiting (an answer that came
    /// too late, or one never asked for).
    mutating func answered(_ id: UInt64) -> Waiter? {
        waiting.removeValue(forKey: id)
    }

    /// The request was withdrawn (its sender stopped waiting, or could not send it).
    mutating func withdrawn(_ id: UInt64) -> Waiter? {
        waiting.removeValue(forKey: id)
    }

    /// The request's time ran out at `now`: the peer counts as stalled for a while.
    mutating func timedOut(_ id: UInt64, at now: Instant) -> Waiter? {
        guard let waiter = waiting.removeValue(forKey: id) else { return nil }
        lastTimeout = now
        return waiter
    }

    /// Every waiter, for a session that ends.
    mutating func endAll() -> [Waiter] {
        defer { waiting.removeAll() }
        return Array(waiting.values)
    }

    /// True when a request timed out less than ``stallMemory`` before `now`.
    func stalled(at now: Instant) -> Bool {
        lastTimeout.map { $0.advanced(by: stallMemory) > now } ?? false
    }
}
