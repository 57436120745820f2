import UbiqModel

/// Paths the watcher saw change, to be rescanned together. A folder means "rescan this
/// subtree"; `rescanAll` means events were lost (the kernel queue overflowed, or the root
/// itself moved) and only a full scan can tell what happened.
public struct WatchBatch: Sendable, Equatable {
    public var paths: Set<RelativePath>
    public var rescanAll: Bool

    public init(paths: Set<RelativePath> = [], rescanAll: Bool = false) {
        self.paths = paths
        self.rescanAll = rescanAll
    }
}
