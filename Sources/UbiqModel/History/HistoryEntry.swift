/// A version of a file that this device replaced or deleted, kept in the container's history
/// (`.ubiq/history/`) instead of freed, so that a bad save, an `rm -r` or a program that
/// encrypts a folder can be undone.
public struct HistoryEntry: Hashable, Sendable {
    /// Why the version left its path.
    public enum Reason: Int, Sendable, Hashable, CaseIterable {
        /// Another version took its place.
        case replaced = 0
        /// The file was deleted.
        case deleted = 1
        /// A conflict version that a resolution dropped.
        case resolved = 2

        public var name: String {
            switch self {
            case .replaced: "replaced"
            case .deleted: "deleted"
            case .resolved: "resolved"
            }
        }
    }

    /// The index's number for it, unique in the container; 0 until stored.
    public var id: Int64
    /// The version as it was current: path, content, metadata, version vector, author.
    public var item: Item
    /// Its file under `.ubiq/history/`.
    public var name: String
    /// When it left its path, in milliseconds since 1970.
    public var keptAt: Int64
    public var reason: Reason
    /// The device whose change replaced or deleted it.
    public var by: DeviceID

    public init(id: Int64 = 0, item: Item, name: String, keptAt: Int64, reason: Reason, by: DeviceID) {
        self.id = id
        self.item = item
        self.name = name
        self.keptAt = keptAt
        self.reason = reason
        self.by = by
    }

    /// The path it was at.
    public var path: RelativePath { item.path }
}
