import UbiqModel

/// A container's sync state between I/O, as one value: what pull passes have taken on,
/// which changes failed and when each is tried again, renames being carried out, case
/// conflicts, scans left for a client's lease to end. Events go in as mutating calls and
/// decisions come out as return values; ``ContainerSync`` holds one and executes what it
/// decides, and keeps no other mutable sync state.
struct ContainerState: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// Changes from peers that failed and are still needed, by path.
    private(set) var failures: [RelativePath: ContainerSync.ApplyFailure] = [:]
    /// Paths new here that a peer's change would create beside an item differing only in
    /// case, with that item: reported, never written, until one of them goes.
    private(set) var caseConflicts: [RelativePath: RelativePath] = [:]
    /// Renames being carried out, old path → new path, so the removal of the old path can be
    /// reported as a move.
    private(set) var moves: [RelativePath: RelativePath] = [:]
    private(set) var scanning = false
    /// Whether content asked for outside on-demand (a reset, a restore) may still wait in the
    /// index: true at start, and again whenever something is asked for.
    var fetchRequestsMayWait = true
    /// Deletions held back for a person, or gathered to be judged.
    var deletions = DeletionHold(threshold: 100)
    /// Whether the container's folder is this one (`FolderCheck`), as last looked at.
    private(set) var folder = FolderState.unchecked
    /// What the last scans found on disk and could not sync, by path.
    private(set) var scanProblems: [String: ScanProblem] = [:]
    /// Files with several names, so that a change at one rescans the others.
    private(set) var hardLinks = HardLinks()
    /// A receive-only container's own changes, not in the index.
    private(set) var held = HeldChanges()
    /// Whether resumable staged files may be left by abandoned attempts (or a run before).
    private var partialFilesMayRemain = true
    private var retries = RetryBackoff()
    private var inFlight = PathsInFlight()
    private var passes: PullPassSchedule
    /// Subtrees not rescanned because a client held a write lease in them (nil: all).
    private var deferredScans: Set<RelativePath?> = []
    /// When the kept conflict versions were last checked for missing copies.
    private var keptVersionsChecked: Instant?
    /// When kept versions no item lists were last looked for.
    private var keptVersionsSwept: Instant?
    /// How often at most a pass that ends with nothing in flight checks them, and a pass
    /// that finds nothing needed sweeps them (a version goes a minute after it was last
    /// listed, so sweeping more often frees nothing sooner).
    static let keptVersionsCheckInterval = Duration.seconds(10)
    private var historyPruned: Instant?
    static let historyPruneInterval = Duration.seconds(600)

    init(overtakeAfter: Duration) {
        passes = PullPassSchedule(overtakeAfter: overtakeAfter)
    }

    // MARK: the folder

    enum FolderState: Sendable, Equatable {
        case unchecked
        case available
        case unavailable(FolderUnavailable)
    }

    /// What a look at the folder found, from what it was before.
    enum FolderChange: Equatable {
        /// Available, as before.
        case same
        /// Available at the first look since the start.
        case first
        /// Available again after it was not: everything is to be scanned.
        case returned
        /// Unavailable now, after it was not (or with another reason).
        case lost(FolderUnavailable)
        /// Unavailable, as before, for another reason now.
        case otherReason(FolderUnavailable)
        /// Unavailable, as before.
        case stillUnavailable
    }

    /// What the index remembers of the folder, read once (nil: not read yet, or nothing).
    private(set) var rememberedFolder: RememberedFolder?

    mutating func remember(_ folder: RememberedFolder?) {
        if let folder { rememberedFolder = folder }
    }

    mutating func folderLooked(_ now: FolderState) -> FolderChange {
        let before = folder
        folder = now
        switch (before, now) {
        case (.available, .available): return .same
        case (.unchecked, .available): return .first
        case (.unavailable, .available): return .returned
        case (.unavailable(let old), .unavailable(let new)): return old == new ? .stillUnavailable : .otherReason(new)
        case (_, .unavailable(let reason)): return .lost(reason)
        case (_, .unchecked): return .same
        }
    }

    // MARK: pull passes

    /// What a pull pass that read `needs` does.
    enum PassStart: Equatable {
        /// Nothing is needed; whether kept versions no item lists are to be swept now (no
        /// pass runs, and none swept them for ``keptVersionsCheckInterval``).
        case nothingNeeded(sweepVersions: Bool)
        /// Everything needed is taken by another pass or waits to be retried.
        case nothingFree
        case apply(PullPlan)
    }

    /// Someone asked for a pull pass at `now`; `waitingSince` is since when the retried
    /// transfer that has waited longest for bytes has waited.
    mutating func pullAsked(at now: Instant, waitingSince: Instant?) -> PullPassSchedule.Decision {
        passes.asked(at: now, waitingSince: waitingSince)
    }

    /// A pass read every need: forgets failures and case conflicts of paths no longer
    /// needed, takes the needs no other pass holds and whose retry is due, and orders them.
    mutating func passBegins(needs: [Item], at now: Instant) -> PassStart {
        forgetAllBut(Set(needs.map(\.path)))
        guard !needs.isEmpty else { return .nothingNeeded(sweepVersions: inFlight.isEmpty && Self.due(&keptVersionsSwept, at: now)) }
        var free: [Item] = []
        var leftBusy = false
        for need in needs {
            if !inFlight.isFree(need.path) { leftBusy = true } else if !retries.isWaiting(need, at: now) { free.append(need) }
        }
        if leftBusy { passes.passLeftNeedsBusy() }
        guard !free.isEmpty else { return .nothingFree }
        let plan = PullPlan(needs: free, failing: Set(free.map(\.path).filter { failures[$0] != nil }))
        inFlight.take(plan.taken)
        return .apply(plan)
    }

    /// Whether a pass that just ended should look for conflict versions items list but this
    /// device does not keep (a catch-all: they are fetched again); at most every
    /// ``keptVersionsCheckInterval``, and only with nothing in flight.
    /// Whether the history is due for pruning: at the first pass, then every
    /// ``historyPruneInterval``.
    mutating func historyPruneDue(at now: Instant) -> Bool {
        guard historyPruned.map({ now - $0 >= Self.historyPruneInterval }) ?? true else { return false }
        historyPruned = now
        return true
    }

    mutating func keptVersionsCheckDue(at now: Instant) -> Bool {
        inFlight.isEmpty && Self.due(&keptVersionsChecked, at: now)
    }

    /// Whether ``keptVersionsCheckInterval`` has passed since `last`; if so, `last` becomes now.
    private static func due(_ last: inout Instant?, at now: Instant) -> Bool {
        guard last.map({ now - $0 >= keptVersionsCheckInterval }) ?? true else { return false }
        last = now
        return true
    }

    /// A step of a pass is done: its paths are free for other passes.
    mutating func released(_ paths: some Sequence<RelativePath>) { inFlight.release(paths) }

    mutating func partialFileAbandoned() { partialFilesMayRemain = true }

    /// A scan of `roots` saw these files with several names; returns the inodes whose other
    /// names are not known (to look up in the index and give to ``linksFound(_:)``).
    mutating func linksScanned(_ roots: [RelativePath?], found: [RelativePath: UInt64]) -> Set<UInt64> {
        hardLinks.scanned(roots, found: found)
        return hardLinks.unknownInodes(in: found)
    }

    mutating func linksFound(_ names: [RelativePath: UInt64]) { hardLinks.add(names) }

    /// True once after partial files may have been left: nothing needed now, they can go.
    mutating func takePartialFilesToRemove() -> Bool {
        defer { partialFilesMayRemain = false }
        return partialFilesMayRemain
    }

    /// Whether a pull pass is applying something inside `folder`, which changes under the
    /// puller; the puller puts its mtime back when it gives the paths back.
    func isApplying(inside folder: RelativePath) -> Bool { inFlight.holdsSomething(inside: folder) }

    /// A pass ended, having taken `plan` (nil: it took nothing); returns whether another is due.
    mutating func passEnded(_ plan: PullPlan?) -> Bool {
        if let plan { inFlight.release(plan.taken) }
        return passes.ended(tookSome: plan != nil)
    }

    mutating func movesBegin(_ started: [RelativePath: RelativePath]) { moves.merge(started) { _, new in new } }

    mutating func movesEnded(_ ended: some Sequence<RelativePath>) { for old in ended { moves[old] = nil } }

    // MARK: outcomes

    /// What a failed try of a change means.
    struct FailureNote: Equatable {
        /// Tries of this version that failed so far.
        var failures: Int
        var retryIn: Duration
        /// The failure to tell subscribers of; nil when its reason is not new for its path.
        var news: ContainerSync.ApplyFailure?
    }

    mutating func failed(_ item: Item, reason: String, at now: Instant) -> FailureNote {
        let (count, wait) = retries.failed(item, at: now)
        guard failures[item.path]?.reason != reason else { return FailureNote(failures: count, retryIn: wait, news: nil) }
        let failure = ContainerSync.ApplyFailure(item: item, reason: reason)
        failures[item.path] = failure
        return FailureNote(failures: count, retryIn: wait, news: failure)
    }

    /// These paths were written (or their need dropped): nothing about them is pending.
    mutating func settled(_ paths: some Sequence<RelativePath>) {
        held.settled(paths)
        guard !failures.isEmpty || !caseConflicts.isEmpty else { return }
        for path in paths {
            failures[path] = nil
            caseConflicts[path] = nil
        }
        retries.forget(paths)
    }

    /// A receive-only container's scan of `roots` found `changes` and saw `unchanged` as held.
    mutating func heldChangesScanned(_ roots: [RelativePath?], changes: [RelativePath: HeldChanges.Change], unchanged: Set<RelativePath>) {
        held.scanned(roots, held: changes, unchanged: unchanged)
    }

    /// A change made here is gone from disk without an index write (a revert removed it).
    mutating func heldChangeUndone(_ path: RelativePath) {
        held.settled([path])
    }

    /// A change to `path` was not written because `twin` differs from it only in case;
    /// returns whether this conflict is new.
    mutating func caseConflict(_ path: RelativePath, twin: RelativePath) -> Bool {
        caseConflicts.updateValue(twin, forKey: path) != twin
    }

    /// Peers now hold these paths: failed changes among them are tried again at once.
    /// Returns whether any was.
    mutating func peersHold(_ paths: [RelativePath], at now: Instant) -> Bool {
        let failing = failures.isEmpty ? [] : paths.filter { failures[$0] != nil }
        if !failing.isEmpty { retries.endWaits(of: failing, at: now) }
        return !failing.isEmpty
    }

    /// A peer connected: it may hold whatever was missing, so every failed change is tried
    /// again at once. Returns whether any failed.
    mutating func peerConnected(at now: Instant) -> Bool {
        guard !failures.isEmpty else { return false }
        retries.endWaits(at: now)
        return true
    }

    private mutating func forgetAllBut(_ needed: Set<RelativePath>) {
        if !failures.isEmpty {
            failures = failures.filter { needed.contains($0.key) }
            retries.keepOnly(needed)
        }
        if !caseConflicts.isEmpty { caseConflicts = caseConflicts.filter { needed.contains($0.key) } }
    }

    // MARK: scans

    mutating func scanBegins() { scanning = true }
    mutating func scanEnds() { scanning = false }

    /// A scan of `root` found `problems`: they replace what earlier scans found there, but
    /// for those `keeping` keeps.
    mutating func scanned(_ root: RelativePath?, problems: [ScanProblem], keeping: (ScanProblem) -> Bool = { _ in false }) {
        guard !problems.isEmpty || !scanProblems.isEmpty else { return }
        scanProblems = scanProblems.filter { !$0.value.isUnder(root) || keeping($0.value) }
        for problem in problems { scanProblems[problem.path] = problem }
    }

    /// Whether a scan found a problem at `root` or under it.
    func hasScanProblems(under root: RelativePath) -> Bool {
        scanProblems.values.contains { $0.isUnder(root) }
    }

    /// A scan of `roots` waits for a write lease to end.
    mutating func deferScans(_ roots: some Sequence<RelativePath?>) { deferredScans.formUnion(roots) }

    var hasDeferredScans: Bool { !deferredScans.isEmpty }

    /// A lease ended: the scans left for it, now due.
    mutating func takeDeferredScans() -> Set<RelativePath?> {
        defer { deferredScans = [] }
        return deferredScans
    }

    /// The state in one line, for a report of a run that did not settle.
    var summary: String {
        "passes running \(passes.runningCount), in flight \(inFlight.paths.map(\.rawValue).sorted()), "
            + "failures \(failures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.reason)" }), case conflicts \(caseConflicts.keys.map(\.rawValue).sorted()), "
            + "deferred scans \(deferredScans.map { $0?.rawValue ?? "/" }.sorted())"
    }
}

/// What status shows of a container's state: copied (cheaply, the collections are shared
/// until written) each time the state changes, and read without the container's actor.
struct StatusBoard: Sendable {
    var failures: [RelativePath: ContainerSync.ApplyFailure] = [:]
    var caseConflicts: [RelativePath: RelativePath] = [:]
    var scanning = false
    var scanProblems: [String: ScanProblem] = [:]
    var unavailable: FolderUnavailable?
    var deletions = DeletionHold(threshold: 0)

    init() {}

    init(_ state: ContainerState) {
        deletions = state.deletions
        if case .unavailable(let reason) = state.folder { unavailable = reason }
        failures = state.failures
        caseConflicts = state.caseConflicts
        scanning = state.scanning
        scanProblems = state.scanProblems
    }
}
