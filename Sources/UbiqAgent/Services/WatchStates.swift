import Synchronization
import UbiqControlAPI
import UbiqFileSystem
import UbiqModel

/// What each container's watcher watches, kept by its `ContainerService` and read by
/// `agent.status`: a folder past the kernel's watch limit, or not watched at all, must be
/// said, with what to do, not left to silence.
final class WatchStates: Sendable {
    /// How often a container is rescanned whole while some of it is not watched.
    static let unwatchedRescan: Duration = TestHooks.unwatchedRescanSeconds.map { .seconds($0) } ?? .seconds(60)

    enum State: Sendable {
        case watching(Watcher)
        case notWatched(reason: String)
    }

    private let states = Mutex<[ContainerID: State]>([:])

    func set(_ state: State?, for container: ContainerID) {
        states.withLock { $0[container] = state }
    }

    /// Whether the container is rescanned on a timer: its watcher is at the kernel's limit,
    /// or it has none.
    func needsRescans(_ container: ContainerID) -> Bool {
        switch states.withLock({ $0[container] }) {
        case .watching(let watcher): watcher.count.limitReached
        case .notWatched: true
        case nil: false
        }
    }

    /// The status of a container's watcher; nil while it has none (its folder is not there).
    func status(of container: ContainerID) -> WatcherStatus? {
        let every = Int(Self.unwatchedRescan.components.seconds)
        switch states.withLock({ $0[container] }) {
        case .watching(let watcher):
            let count = watcher.count
            let problem = count.limitReached
                ? "the kernel's limit of inotify watches is reached, so some folders are not watched; the container is rescanned every \(every) s instead. Raise fs.inotify.max_user_watches (sysctl -w fs.inotify.max_user_watches=N, and in /etc/sysctl.d to keep it) and restart the agent"
                : nil
            return WatcherStatus(watches: count.watches, limitReached: count.limitReached, rescanSeconds: count.limitReached ? every : nil,
                                 problem: problem)
        case .notWatched(let reason):
            return WatcherStatus(watches: 0, limitReached: false, rescanSeconds: every,
                                 problem: "the container is not watched (\(reason)); it is rescanned every \(every) s instead")
        case nil:
            return nil
        }
    }
}
