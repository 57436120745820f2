/// What a write puts on a file besides its bytes: the facts of an item that the disk keeps
/// in the inode.
public struct FileMetadata: Hashable, Sendable {
    public var permissions: Permissions
    /// Nanoseconds since 1970.
    public var mtime: Int64
    public var attributes: ExtendedAttributes

    public init(permissions: Permissions, mtime: Int64, attributes: ExtendedAttributes = .empty) {
        self.permissions = permissions
        self.mtime = mtime
        self.attributes = attributes
    }

    public init(of item: Item) {
        self.init(permissions: item.permissions, mtime: item.mtime, attributes: item.attributes)
    }

    public init(of version: ConflictVersion) {
        self.init(permissions: version.permissions, mtime: version.mtime, attributes: version.attributes)
    }
}
