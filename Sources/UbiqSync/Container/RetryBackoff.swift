import UbiqModel

/// When a change that failed is tried again: ``first`` after its first failure, twice as
/// long after each further one, at most ``longest`` apart. A change that can never be
/// applied (a file larger than the disk) then costs a try (logged at debug level) a minute,
/// not one every pass. A new version of the item starts afresh; a peer that connects, or
/// that announces it holds the item, ends the wait (it may hold what was missing).
struct RetryBackoff: Sendable {
    typealias Instant = ContinuousClock.Instant

    static let first = Duration.seconds(1)
    static let longest = Duration.seconds(60)

    private struct Entry {
        var version: VersionVector
        var failures: Int
        var retryAt: Instant
    }

    private var entries: [RelativePath: Entry] = [:]

    /// Notes a failed try of `item` at `now`; returns how many tries of this version have
    /// failed and how long it now waits.
    mutating func failed(_ item: Item, at now: Instant) -> (failures: Int, wait: Duration) {
        var entry = entries[item.path].flatMap { $0.version == item.version ? $0 : nil }
            ?? Entry(version: item.version, failures: 0, retryAt: now)
        entry.failures += 1
        let wait = Self.wait(afterFailures: entry.failures)
        entry.retryAt = now + wait
        entries[item.path] = entry
        return (entry.failures, wait)
    }

    /// True while this version of `item` failed and its wait has not run out.
    func isWaiting(_ item: Item, at now: Instant) -> Bool {
        guard let entry = entries[item.path], entry.version == item.version else { return false }
        return now < entry.retryAt
    }

    mutating func forget(_ paths: some Sequence<RelativePath>) {
        for path in paths { entries[path] = nil }
    }

    mutating func keepOnly(_ paths: Set<RelativePath>) {
        entries = entries.filter { paths.contains($0.key) }
    }

    /// Ends every wait; the next pass tries each failed change again (failure counts stay).
    mutating func endWaits(at now: Instant) {
        endWaits(of: Array(entries.keys), at: now)
    }

    mutating func endWaits(of paths: some Sequence<RelativePath>, at now: Instant) {
        for path in paths { entries[path]?.retryAt = now }
    }

    static func wait(afterFailures failures: Int) -> Duration {
        var wait = first
        for _ in 1..<max(1, failures) where wait < longest { wait *= 2 }
        return min(wait, longest)
    }
}
