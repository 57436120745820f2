import UbiqModel

/// One ubiquity container this device takes part in: where its folder is and whether file
/// contents are fetched eagerly.
public struct ContainerSettings: Hashable, Sendable {
    /// Whether a container's file contents come down as soon as they are known.
    public enum Download: String, Hashable, Sendable, CaseIterable {
        /// Every file's contents are fetched as soon as its metadata arrives.
        case all
        /// Only metadata is fetched; contents come down when asked for (`ubiq download`).
        case onDemand = "on-demand"
    }

    public var id: ContainerID
    /// Absolute, normalised (no `~`, `.`, `..`, duplicate or trailing `/`).
    public var path: String
    public var download: Download

    public init(id: ContainerID, path: String, download: Download = .all) {
        self.id = id
        self.path = path
        self.download = download
    }
}
