/// One file, folder or link inside a file package, by its path inside the package. A
/// package travels and conflicts as one item; its members say what is inside it.
public struct PackageMember: Hashable, Sendable, Codable {
    /// Relative to the package's folder.
    public var path: RelativePath
    /// `.file`, `.directory` or `.symlink`.
    public var kind: ItemKind
    /// Bytes of a file; 0 otherwise.
    public var size: UInt64
    /// Nanoseconds since 1970.
    public var mtime: Int64
    public var permissions: Permissions
    /// None on links.
    public var attributes: ExtendedAttributes
    /// A link's text; nil otherwise.
    public var symlinkTarget: String?

    public init(path: RelativePath, kind: ItemKind, size: UInt64 = 0, mtime: Int64 = 0, permissions: Permissions? = nil,
                attributes: ExtendedAttributes = .empty, symlinkTarget: String? = nil) {
        self.path = path
        self.kind = kind
        self.size = size
        self.mtime = mtime
        self.permissions = permissions.map { Permissions(mode: $0.bits, kind: kind) } ?? .defaults(for: kind)
        self.attributes = kind == .symlink ? .empty : attributes
        self.symlinkTarget = symlinkTarget
    }
}
