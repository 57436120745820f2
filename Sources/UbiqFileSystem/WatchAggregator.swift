import UbiqModel

/// Turns a stream of file events into batches, deciding only from events and times (no I/O,
/// no clock of its own) so its timing rules are unit-tested.
///
/// A path whose writer has finished (closed after writing, renamed, deleted, attributes
/// changed, a new folder or link) is flushed after `settleDelay` of quiet among such
/// events, so a saved document is seen within milliseconds; a burst still comes as one batch,
/// but a settled path never waits longer than `settleMaximumDelay`. A file only being written
/// (no close yet) waits until it has been quiet for `modifyDelay`. Nothing waits longer than
/// `maximumDelay` from its first event. A file package is one path: any event inside it is the
/// package's, which waits until the package has been quiet for `modifyDelay`, so that a
/// program writing its files one after another makes one new version. A folder whose own
/// attributes alone changed (its mtime put back, a chmod) is batched as that folder alone,
/// not its subtree: the agent puts back a folder's mtime after each file it places there, and
/// a rescan of the whole folder for each would grow with the folder.
public struct WatchAggregator: Sendable {
    public typealias Instant = ContinuousClock.Instant

    public struct Options: Sendable, Equatable {
        public var settleDelay: Duration
        public var settleMaximumDelay: Duration
        public var modifyDelay: Duration
        public var maximumDelay: Duration
        /// Which folders are file packages.
        public var packages: PackageRules

        public init(
            settleDelay: Duration = .milliseconds(3), settleMaximumDelay: Duration = .milliseconds(25),
            modifyDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(1), packages: PackageRules = .none
        ) {
            self.settleDelay = settleDelay
            self.settleMaximumDelay = settleMaximumDelay
            self.modifyDelay = modifyDelay
            self.maximumDelay = maximumDelay
            self.packages = packages
        }
    }

    /// What an event says about its path.
    public enum Change: Sendable, Equatable {
        /// The change is complete (close after write, rename, delete, attributes, new folder).
        case settled
        /// Bytes are being written and the writer has not closed the file yet.
        case modified
        /// A folder's own attributes changed (mtime, permissions, extended attributes), not
        /// what it holds.
        case folderItself
    }

    private struct Pending {
        var firstSeen: Instant
        var lastEvent: Instant
        /// When the path last became settled, nil while it is being written.
        var settledAt: Instant?
        /// Only the folder's own attributes changed: nothing inside needs a look.
        var itselfOnly: Bool
    }

    public let options: Options
    private var pending: [RelativePath: Pending] = [:]
    private var lastSettle: Instant?
    private var overflowAt: Instant?

    public init(options: Options = Options()) {
        self.options = options
    }

    public var isEmpty: Bool { pending.isEmpty && overflowAt == nil }

    public mutating func record(_ path: RelativePath, _ change: Change, at now: Instant) {
        var (path, change) = (path, change)
        if let package = options.packages.package(containing: path) ?? (options.packages.isPackageName(path.name) ? path : nil) {
            // A package's files are written one after another: it is done once it is quiet.
            (path, change) = (package, .modified)
        }
        var entry = pending[path] ?? Pending(firstSeen: now, lastEvent: now, settledAt: nil, itselfOnly: change == .folderItself)
        entry.lastEvent = now
        switch change {
        case .settled, .folderItself:
            if change == .settled { entry.itselfOnly = false }
            if entry.settledAt == nil { entry.settledAt = now }
            lastSettle = now
        case .modified:
            entry.itselfOnly = false
            entry.settledAt = nil
        }
        pending[path] = entry
    }

    /// Events were lost: the next batch asks for a full rescan.
    public mutating func recordOverflow(at now: Instant) {
        if overflowAt == nil { overflowAt = now }
        lastSettle = now
    }

    /// When the next batch is due, or nil if nothing is pending.
    public func nextDeadline() -> Instant? {
        var next = overflowAt.map { $0 + options.settleDelay }
        for entry in pending.values {
            let due = deadline(of: entry)
            if next == nil || due < next! { next = due }
        }
        return next
    }

    /// The paths due at `now`, removed from the pending set; nil if none are due.
    public mutating func flush(at now: Instant) -> WatchBatch? {
        if let overflowAt, overflowAt + options.settleDelay <= now {
            self.overflowAt = nil
            let batch = WatchBatch(paths: Self.collapsed(Set(pending.keys)), rescanAll: true)
            pending.removeAll()
            return batch
        }
        var due: Set<RelativePath> = []
        for (path, entry) in pending where deadline(of: entry) <= now {
            due.insert(path)
        }
        guard !due.isEmpty else { return nil }
        // Whatever else has settled goes along: its writer is done, and fewer batches are cheaper.
        for (path, entry) in pending where entry.settledAt != nil {
            due.insert(path)
        }
        var subtrees: Set<RelativePath> = []
        var folders: Set<RelativePath> = []
        for path in due {
            if pending.removeValue(forKey: path)?.itselfOnly == true { folders.insert(path) } else { subtrees.insert(path) }
        }
        let collapsed = Self.collapsed(subtrees)
        // A folder inside (or at) a subtree to rescan is looked at by that rescan.
        return WatchBatch(paths: collapsed, folders: folders.filter { folder in
            !collapsed.contains { folder.isInside($0) }
        })
    }

    private func deadline(of entry: Pending) -> Instant {
        let cap = entry.firstSeen + options.maximumDelay
        guard let settledAt = entry.settledAt else {
            return min(entry.lastEvent + options.modifyDelay, cap)
        }
        let quiet = (lastSettle ?? settledAt) + options.settleDelay
        return min(quiet, settledAt + options.settleMaximumDelay, cap)
    }

    /// Drops paths inside another path of the set: rescanning the folder covers them.
    static func collapsed(_ paths: Set<RelativePath>) -> Set<RelativePath> {
        paths.filter { path in
            var parent = path.parent
            while let folder = parent {
                if paths.contains(folder) { return false }
                parent = folder.parent
            }
            return true
        }
    }
}
