/// What the scanner found at one path of a container: the local facts the index compares
/// with its own record to decide whether this is a new version.
public struct LocalEntry: Hashable, Sendable {
    public var path: RelativePath
    public var kind: ItemKind
    /// Bytes for files and packages (their files'); 0 for folders and symbolic links.
    public var size: UInt64
    /// Modification time in nanoseconds since 1970.
    public var mtime: Int64
    /// The permission bits that travel (``Permissions``); nil where this scan did not take
    /// them (`ignore_permissions`): the synced ones stay.
    public var permissions: Permissions?
    /// The `user.` extended attributes; nil where this scan did not take them (switched off for
    /// the container, or a set past ``ExtendedAttributes/limit``): the synced ones stay.
    public var attributes: ExtendedAttributes?
    /// The link text, for symbolic links, exactly as stored (never followed).
    public var symlinkTarget: String?
    /// The content's chunks, for files; a package's chunk stream (``PackageContent``).
    public var chunks: [ChunkRef]
    /// What a package holds; empty for other kinds.
    public var members: [PackageMember]
    /// The `lstat` facts at hashing time, to skip rehashing next time.
    public var stat: FileStat

    public init(
        path: RelativePath, kind: ItemKind, size: UInt64, mtime: Int64, executable: Bool = false,
        permissions: Permissions? = nil, attributes: ExtendedAttributes? = .empty, symlinkTarget: String? = nil,
        chunks: [ChunkRef] = [], members: [PackageMember] = [], stat: FileStat
    ) {
        self.path = path
        self.kind = kind
        self.size = size
        self.mtime = mtime
        self.permissions = permissions ?? .defaults(for: kind, executable: executable)
        self.attributes = attributes
        self.symlinkTarget = symlinkTarget
        self.chunks = chunks
        self.members = kind == .package ? members : []
        self.stat = stat
    }

    public var executable: Bool { permissions?.executable ?? false }
}
