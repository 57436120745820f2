import Logging
import UbiqModel

/// Changes from peers that could not be applied (a full disk, a folder in the way), kept
/// until they succeed or are no longer needed, so status and events can say what is stuck
/// and why instead of only the log.
extension ContainerSync {
    /// One change that failed, with why.
    public struct ApplyFailure: Sendable, Hashable {
        public var item: Item
        public var reason: String
    }

    /// Notes a failed attempt and when it is tried again. The log says `what` at warning
    /// level after the first failed try of this version, at debug level after later ones (a
    /// nil `what`: the caller logged it); subscribers hear of it when the reason is new.
    /// Content no connected peer served yet is routine for a moment (a conflict's losing
    /// version, fetched as the peer that made it records the merge): info at first, a
    /// warning once it has failed ``notServedWarnsAfter`` times.
    func failed(_ item: Item, _ error: any Error, _ what: String?) {
        // The need stays; the resume applies it.
        if error is SyncPaused { return }
        if error is FetchError, recordedUnfetchable(item) { return }
        let reason = "\(error)"
        let note = state.failed(item, reason: reason, at: clock.now)
        if let what {
            let notServed = (error as? FetchError)?.kind == .notServed
            let level: Logger.Level = switch (notServed, note.failures) {
            case (false, 1), (true, Self.notServedWarnsAfter): .warning
            case (true, 1): .info
            default: .debug
            }
            logger.log(level: level, "\(what); will retry", metadata: [
                "path": "\(item.path)", "error": "\(reason)", "retry": "in \(note.retryIn.components.seconds) s",
                "failures": "\(note.failures)",
            ])
        }
        if let news = note.news { failureFeed.yield(news) }
    }

    static let notServedWarnsAfter = 3

    /// Tries every failed change again in the next pass instead of at its usual time; the
    /// engine calls it when a peer connects, since that peer may hold what was missing.
    public func retryFailedChangesSoon() {
        if state.peerConnected(at: clock.now) { requestPull() }
    }

    /// A scan of `root` found `problems` on disk: status lists them until a scan finds them
    /// gone; the log says each once, when it is new.
    /// `kept`: earlier problems under `root` that stay though this scan did not find them
    /// again (it did not read their path again).
    func reportProblems(_ problems: [ScanProblem], under root: RelativePath?, kept: (ScanProblem) -> Bool = { _ in false }) {
        let known = state.scanProblems
        for problem in problems where known[problem.path] != problem {
            if problem.ignoredBy != nil {
                logger.debug("ignored path on disk", metadata: ["path": "\(problem.path)", "reason": "\(problem.reason)"])
            } else {
                logger.warning("cannot sync a path on disk", metadata: ["path": "\(problem.path)", "reason": "\(problem.reason)"])
            }
            problemFeed.yield(problem)
        }
        state.scanned(root, problems: problems, keeping: kept)
    }

    /// What is on disk and cannot be synced, by path; answers at once.
    public nonisolated func scanProblems() -> [ScanProblem] {
        board.withLock { $0.scanProblems }.values.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// Failed changes now, by path; answers at once, whatever the actor is doing.
    public nonisolated func failures() -> [ApplyFailure] {
        board.withLock { $0.failures }.values.sorted { $0.item.path < $1.item.path }
    }

    /// Every failure from now on, when its reason is new for its path.
    public nonisolated func failureEvents() -> AsyncStream<ApplyFailure> { failureFeed.subscribe() }

    /// Every path on disk the scans newly find they cannot sync (unreadable, or a name that
    /// is not valid UTF-8), once per path and reason.
    public nonisolated func problemEvents() -> AsyncStream<ScanProblem> { problemFeed.subscribe() }
}
