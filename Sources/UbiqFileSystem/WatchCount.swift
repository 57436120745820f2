import Synchronization

/// How many folders a container's watcher watches, and whether the kernel refused one:
/// `agent.status` shows it, and a watcher at the limit makes the agent rescan what it
/// cannot watch.
public struct WatchCount: Sendable, Hashable {
    /// inotify watches held: one per folder watched.
    public var watches: Int
    /// The kernel refused a watch for want of room (`fs.inotify.max_user_watches`): some
    /// folders, and everything inside them, are not watched.
    public var limitReached: Bool

    public init(watches: Int = 0, limitReached: Bool = false) {
        self.watches = watches
        self.limitReached = limitReached
    }
}

/// The watcher thread's `WatchCount`, read from any task.
final class WatchGauge: Sendable {
    private let count = Mutex(WatchCount())

    var value: WatchCount { count.withLock { $0 } }

    func set(_ value: WatchCount) {
        count.withLock { $0 = value }
    }
}
