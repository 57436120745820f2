import UbiqModel

/// Deletions a scan found and did not record, because they would delete much of the
/// container at once (DESIGN.md §3, "A mass deletion waits for a person"): more than
/// `threshold` files and more than half of the container's files. A burst that comes in
/// several scans (the watcher's batches; or one scan a file, as when a folder goes while the
/// agent writes into it and each write's scan runs after) is gathered before it is judged
/// whole: once the files deleted within ``burstWindow`` pass a quarter of the threshold, until
/// ``gatherWindow`` after the last scan that added to it (at most ``longestGather`` in all,
/// and until the next pull pass after that). It is judged with the files its first scans
/// recorded (at most a quarter of the threshold pass so); then what was gathered is recorded,
/// or held until a person confirms or restores it. Held paths are still present in the index,
/// so peers keep them;
/// their content is gone here, so peers hear of them as present without it (``announced``).
struct DeletionHold: Sendable {
    enum Phase: Sendable, Equatable {
        case none
        /// A large burst is being gathered since `since`, until `until`; `recordedBefore` of
        /// its files were recorded before it was.
        case gathering(since: ContinuousClock.Instant, until: ContinuousClock.Instant, recordedBefore: Int)
        /// Held for a person since `since` (wall time, ms).
        case holding(since: Int64)
    }

    /// How long after the last scan that added to a burst it is judged: scans run at least
    /// every retry interval (a second), so one that waited on the agent's own writes joins it.
    static let gatherWindow = Duration.seconds(2)
    /// The longest a burst is gathered, however long its deletions keep coming.
    static let longestGather = Duration.seconds(10)
    /// How far back deletions recorded count toward a burst: an `rm` that the watcher hands
    /// over in many small batches starts gathering once they add up past a quarter of the
    /// threshold.
    static let burstWindow = Duration.seconds(2)

    /// At most this many files deleted at once are recorded without a person (0: no limit).
    var threshold: Int
    private(set) var phase = Phase.none
    /// The deletions held or being gathered, by path, and whether each is a folder.
    private(set) var paths: [RelativePath: Bool] = [:]
    /// The paths peers last heard of as held: their content not served here.
    private(set) var announced: Set<RelativePath> = []
    /// Files deleted by recent scans and recorded, with when.
    private var recent: [(at: ContinuousClock.Instant, files: Int)] = []

    init(threshold: Int) {
        self.threshold = threshold
    }

    var files: Int { paths.values.count { !$0 } }
    var holdsAny: Bool { !paths.isEmpty }
    /// Held for a person, the folders that alone would be left once `released` is let go of
    /// (nothing to decide on then); empty where files would be left, or while a burst is
    /// gathered.
    func foldersAlone(after released: [RelativePath]) -> [RelativePath] {
        guard case .holding = phase else { return [] }
        let leaving = Set(released)
        let left = paths.filter { !leaving.contains($0.key) }
        return left.values.allSatisfy { $0 } ? Array(left.keys) : []
    }

    /// What a scan does with the deletions it found (`deleted`, each path with whether it is
    /// a folder): nothing is held (all are recorded), or these are held back.
    enum Decision: Equatable {
        case record
        case holdBack
        /// Held back and gathered until the instant: the container looks again then.
        case gather(until: ContinuousClock.Instant)
    }

    mutating func scanFound(_ deleted: [RelativePath: Bool], at now: ContinuousClock.Instant) -> Decision {
        guard threshold > 0, !deleted.isEmpty else { return .record }
        switch phase {
        case .holding:
            paths.merge(deleted) { _, new in new }
            return .holdBack
        case .gathering(let since, _, let recordedBefore):
            paths.merge(deleted) { _, new in new }
            let until = min(now + Self.gatherWindow, since + Self.longestGather)
            phase = .gathering(since: since, until: until, recordedBefore: recordedBefore)
            return .gather(until: until)
        case .none:
            recent.removeAll { $0.at + Self.burstWindow < now }
            let files = deleted.values.count(where: { !$0 })
            let before = recent.reduce(0) { $0 + $1.files }
            guard files + before > threshold / 4 else {
                recent.append((now, files))
                return .record
            }
            recent = []
            paths = deleted
            let until = now + Self.gatherWindow
            phase = .gathering(since: now, until: until, recordedBefore: before)
            return .gather(until: until)
        }
    }

    /// A scan of `roots` (nil: everything) found these held paths there again, or no longer
    /// deleted: they are held no more.
    mutating func scanned(_ roots: [RelativePath?], stillDeleted: Set<RelativePath>) {
        guard !paths.isEmpty else { return }
        for path in paths.keys where !stillDeleted.contains(path) && roots.contains(where: path.isWithin) {
            paths[path] = nil
        }
        if paths.isEmpty { phase = .none }
    }

    /// Whether a burst is being gathered whose window is over at `now`.
    func windowEnds(by now: ContinuousClock.Instant) -> Bool {
        if case .gathering(_, let until, _) = phase { return until <= now }
        return false
    }

    /// The gathering window ended: whether the burst is held (more than `threshold` files and
    /// more than half of the container's, counting those its first scans recorded; the index
    /// still holds `liveFiles`, the gathered ones among them), or the paths to record now.
    mutating func windowEnded(liveFiles: Int, now wall: Int64) -> [RelativePath]? {
        guard case .gathering(_, _, let recordedBefore) = phase else { return nil }
        let burst = files + recordedBefore
        if burst > threshold && burst * 2 > liveFiles + recordedBefore {
            phase = .holding(since: wall)
            return nil
        }
        return takeAll()
    }

    /// Every path held or being gathered.
    var heldPaths: [RelativePath] { Array(paths.keys) }

    /// The paths that went into or out of the hold since peers last heard: each is announced
    /// again, so that no peer counts on this device for the content of a held file (a restore
    /// elsewhere would wait for ever on it), and each let go is served again.
    var unannounced: Set<RelativePath> { heldPathSet.symmetricDifference(announced) }

    /// Peers heard again of every path ``unannounced`` named.
    mutating func announcedAll() {
        announced = heldPathSet
    }

    var heldPathSet: Set<RelativePath> { Set(paths.keys) }

    /// The held paths among `candidates`.
    func held(among candidates: [RelativePath]) -> [RelativePath] {
        candidates.filter { paths[$0] != nil }
    }

    /// Whether `path` is held and no folder.
    func holdsFile(_ path: RelativePath) -> Bool { paths[path] == false }

    /// The held paths among `candidates`, which the hold lets go of (recorded or put back).
    mutating func release(_ candidates: [RelativePath]) -> [RelativePath] {
        let released = held(among: candidates)
        for path in released { paths[path] = nil }
        if paths.isEmpty { phase = .none }
        return released
    }

    /// Every held path, which the hold lets go of (a person confirmed or restored them).
    mutating func takeAll() -> [RelativePath] {
        defer {
            paths = [:]
            phase = .none
        }
        return Array(paths.keys)
    }
}
