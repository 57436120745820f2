import UbiqModel

/// Paths the watcher saw change, to be rescanned together. A folder in `paths` means
/// "rescan this subtree"; one in `folders` changed only its own attributes and is looked at
/// alone; `rescanAll` means events were lost (the kernel queue overflowed, or the root itself
/// moved) and only a full scan can tell what happened. `rootLost` comes alone, at once:
/// the root or its `.ubiq/` went (unmounted, removed, renamed), and the folder must be looked
/// at before anything else is read as a change.
public struct WatchBatch: Sendable, Equatable {
    public var paths: Set<RelativePath>
    public var folders: Set<RelativePath>
    public var rescanAll: Bool
    public var rootLost: Bool

    public init(paths: Set<RelativePath> = [], folders: Set<RelativePath> = [], rescanAll: Bool = false, rootLost: Bool = false) {
        self.paths = paths
        self.folders = folders
        self.rescanAll = rescanAll
        self.rootLost = rootLost
    }
}
