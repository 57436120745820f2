import UbiqModel

/// The result of `container.rescan`: the whole container was compared with the index, and
/// what changed is recorded and announced. Tools call it instead of waiting for the watcher,
/// and benchmarks time it as the idle rescan.
/// The result of `container.reset`: the folder at the container's path is taken as this
/// container's, as it is now, with a new marker; what the index holds and the folder lacks is
/// fetched again (nothing is deleted on other devices).
public struct ContainerResetResult: Hashable, Sendable, Codable {
    public var container: ContainerID
    /// The folder's new marker ID (`.ubiq/folder`).
    public var folder: String
    /// Files and folders the folder lacked, now being fetched again.
    public var refetching: Int

    public init(container: ContainerID, folder: String, refetching: Int) {
        self.container = container
        self.folder = folder
        self.refetching = refetching
    }
}

public struct ContainerRescanResult: Hashable, Sendable, Codable {
    public var container: ContainerID
    /// Entries on disk that the scan looked at.
    public var items: Int
    /// Entries whose change the scan recorded.
    public var changed: Int
    /// How long the scan took, in seconds.
    public var seconds: Double

    public init(container: ContainerID, items: Int, changed: Int, seconds: Double) {
        self.container = container
        self.items = items
        self.changed = changed
        self.seconds = seconds
    }
}
