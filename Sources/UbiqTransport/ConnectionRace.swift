/// Happy Eyeballs (RFC 8305) as a pure value: which of a peer's addresses to try in what
/// order (§4), and when each attempt starts (§5). A peer reached over mDNS or a host name
/// often has several addresses, and the first may be a VPN or container bridge address that
/// never answers; racing them, staggered, finds the one that works without waiting for the
/// others to time out. `PeerTransport` runs the attempts; this decides.
///
/// Events in, actions out: `begin()` once, then report each attempt's outcome and each
/// `startTimer` that fires. Attempt numbers are positions in the ordered address list.
public struct ConnectionRace: Sendable {
    /// An address family, for interleaving.
    public enum Family: Sendable, Hashable {
        case ipv6
        case ipv4
    }

    public enum Action: Sendable, Hashable {
        /// Dial the address at this position of the ordered list.
        case startAttempt(Int)
        /// Feed `delayElapsed(timer)` back after the attempt delay.
        case startTimer(Int)
        /// This attempt connected and authenticated first: keep it and cancel `cancel`, the
        /// attempts still running.
        case keep(Int, cancel: [Int])
        /// This attempt connected after another had won: close it.
        case close(Int)
        /// Every attempt failed.
        case fail
    }

    /// RFC 8305 §8: 250 ms between attempts (100 ms at least where it adapts, never under 10 ms).
    public static let defaultAttemptDelay: Duration = .milliseconds(250)

    public let attemptCount: Int
    private var nextAttempt = 0
    private var running: Set<Int> = []
    private var timer = 0
    private var winner: Int?
    private var failed = false

    public init(attempts: Int) {
        precondition(attempts >= 0, "a race has no negative number of attempts")
        attemptCount = attempts
    }

    /// IPv6 first, then the families alternate (RFC 8305 §4, a "First Address Family Count"
    /// of one); within a family the given order stays. Duplicates are dropped.
    public static func ordered<Address: Hashable>(_ addresses: [Address], family: (Address) -> Family) -> [Address] {
        var seen: Set<Address> = []
        let unique = addresses.filter { seen.insert($0).inserted }
        let v6 = unique.filter { family($0) == .ipv6 }
        let v4 = unique.filter { family($0) == .ipv4 }
        var result: [Address] = []
        result.reserveCapacity(unique.count)
        for i in 0..<max(v6.count, v4.count) {
            if i < v6.count { result.append(v6[i]) }
            if i < v4.count { result.append(v4[i]) }
        }
        return result
    }

    /// Whether an attempt has been kept or every one has failed.
    public var isFinished: Bool { winner != nil || failed }

    public mutating func begin() -> [Action] {
        guard nextAttempt == 0, !isFinished else { return [] }
        guard attemptCount > 0 else {
            failed = true
            return [.fail]
        }
        return startNext()
    }

    /// The attempt delay has passed since `timer` was started. A stale timer (another
    /// attempt started since, on a failure) does nothing.
    public mutating func delayElapsed(_ timer: Int) -> [Action] {
        guard !isFinished, timer == self.timer else { return [] }
        return startNext()
    }

    /// A failed attempt starts the next at once (RFC 8305 §5); the last one to fail fails
    /// the race.
    public mutating func attemptFailed(_ attempt: Int) -> [Action] {
        guard running.remove(attempt) != nil, !isFinished else { return [] }
        if nextAttempt < attemptCount { return startNext() }
        guard running.isEmpty else { return [] }
        failed = true
        return [.fail]
    }

    /// The first success wins; one that arrives later (an attempt cancelled too late) is closed.
    public mutating func attemptSucceeded(_ attempt: Int) -> [Action] {
        guard attempt < nextAttempt, attempt != winner else { return [] }
        guard running.remove(attempt) != nil, winner == nil, !failed else { return [.close(attempt)] }
        winner = attempt
        let cancel = running.sorted()
        running = []
        return [.keep(attempt, cancel: cancel)]
    }

    private mutating func startNext() -> [Action] {
        guard nextAttempt < attemptCount else { return [] }
        let attempt = nextAttempt
        nextAttempt += 1
        running.insert(attempt)
        guard nextAttempt < attemptCount else { return [.startAttempt(attempt)] }
        timer += 1
        return [.startAttempt(attempt), .startTimer(timer)]
    }
}
