import UbiqModel

/// The result of `container.rescan`: the whole container was compared with the index, and
/// what changed is recorded and announced. Tools call it instead of waiting for the watcher,
/// and benchmarks time it as the idle rescan.
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
