import UbiqModel

/// One ubiquity container this device takes part in: where its folder is, whether file
/// contents are fetched eagerly, which facts of a file beside its bytes travel, and what is
/// not synced.
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
    /// Whether the `user.` extended attributes of files and folders travel (on by default).
    public var extendedAttributes: Bool
    /// For file systems that cannot hold permissions (FAT, some network mounts): this device
    /// neither sends its permission bits nor applies its peers'.
    public var ignorePermissions: Bool
    /// Replaced and deleted versions kept on this device.
    public var history: HistorySettings
    /// This device's own ignore patterns, beside the synced `.ubiqignore`.
    public var ignore: [String]
    /// Whether editors' and desktops' temporary files are ignored (``IgnoreRules/defaultPatterns``).
    public var ignoreDefaults: Bool
    /// Which way the container syncs on this device.
    public var mode: FolderMode = .sendReceive
    /// A scan that would delete more than this many files, and more than half of the
    /// container's, waits for a person (`ubiq deletions`); 0 turns that off.
    public var holdDeletionsOver = 100

    public init(id: ContainerID, path: String, download: Download = .all, extendedAttributes: Bool = true, ignorePermissions: Bool = false,
                history: HistorySettings = HistorySettings(), ignore: [String] = [], ignoreDefaults: Bool = true) {
        self.ignore = ignore
        self.ignoreDefaults = ignoreDefaults
        self.id = id
        self.path = path
        self.download = download
        self.extendedAttributes = extendedAttributes
        self.ignorePermissions = ignorePermissions
        self.history = history
    }
}
