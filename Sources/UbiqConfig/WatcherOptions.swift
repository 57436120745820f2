/// What the file watcher needs: which folders are documents and how long to batch events
/// before a file counts as changed.
public struct WatcherOptions: Hashable, Sendable {
    /// Folder extensions (without the dot, lower case) treated as one document (`pages`, …).
    public var packageExtensions: [String]
    /// Wait after a file is closed for writing before scanning it.
    public var closeDelay: Duration
    /// Wait after the last modification of a file still open for writing.
    public var modifyDelay: Duration
    /// Longest a steadily changing file is held back before it is scanned anyway.
    public var maxDelay: Duration

    public init(packageExtensions: [String], closeDelay: Duration, modifyDelay: Duration, maxDelay: Duration) {
        self.packageExtensions = packageExtensions
        self.closeDelay = closeDelay
        self.modifyDelay = modifyDelay
        self.maxDelay = maxDelay
    }
}
