/// What an index entry describes.
public enum ItemKind: String, Sendable, Codable, Hashable {
    case file
    case directory
    case symlink
    /// A folder that is one document (a file package): its inside is in `Item.members`.
    case package

    /// Files and packages have bytes (chunks and a size); folders and links have none.
    public var hasBytes: Bool { self == .file || self == .package }
}

/// The synced description of one path in a container, as every device agrees on it.
///
/// Local-only facts (inode, ctime, sequence numbers) live in the index, not here.
public struct Item: Hashable, Sendable, Codable {
    public var path: RelativePath
    public var kind: ItemKind
    public var deleted: Bool
    public var size: UInt64
    /// Modification time in nanoseconds since 1970; a package's is its folder's own (its
    /// latest change is ``latestChange``).
    public var mtime: Int64
    public var permissions: Permissions
    /// The `user.` extended attributes; none on symbolic links.
    public var attributes: ExtendedAttributes
    public var symlinkTarget: String?
    /// A file's chunks; a package's chunk stream (its files end to end in member order).
    public var chunks: [ChunkRef]
    /// What a package holds, in path order (``PackageContent``); empty for other kinds.
    public var members: [PackageMember]
    public var version: VersionVector
    /// The device whose change produced this content.
    public var modifiedBy: DeviceID
    /// Set where changes of mtime alone followed the change that made the content:
    /// `modifiedBy`'s counter at that change (``contentCounter``). Nil: this version made it.
    public var contentMadeAt: UInt64?
    /// Unresolved conflict versions of this path, the same on every device.
    public var conflicts: [ConflictVersion]

    /// `permissions` when known; else the defaults for the kind, with `executable`.
    /// `contentMadeAt`: nil where this version made the content.
    public init(
        path: RelativePath, kind: ItemKind, deleted: Bool = false, size: UInt64 = 0, mtime: Int64 = 0,
        executable: Bool = false, permissions: Permissions? = nil, attributes: ExtendedAttributes = .empty, symlinkTarget: String? = nil,
        chunks: [ChunkRef] = [], members: [PackageMember] = [], version: VersionVector, modifiedBy: DeviceID, contentMadeAt: UInt64? = nil,
        conflicts: [ConflictVersion] = []
    ) {
        self.path = path
        self.kind = kind
        self.deleted = deleted
        self.size = size
        self.mtime = mtime
        self.permissions = permissions.map { Permissions(mode: $0.bits, kind: kind) } ?? .defaults(for: kind, executable: executable)
        self.attributes = kind == .symlink ? .empty : attributes
        self.symlinkTarget = symlinkTarget
        self.chunks = chunks
        self.members = kind == .package ? members : []
        self.version = version
        self.modifiedBy = modifiedBy
        self.contentMadeAt = contentMadeAt
        self.conflicts = conflicts
    }

    public var executable: Bool { permissions.executable }

    /// When its content last changed: `mtime`, or for a package the latest mtime of anything in it.
    public var latestChange: Int64 { members.reduce(mtime) { max($0, $1.mtime) } }

    /// `modifiedBy`'s counter at the change that produced this content. A later change of
    /// mtime alone moves `version` on but keeps this, so that a concurrent change of the
    /// bytes is not taken for a conflict with it.
    public var contentCounter: UInt64 {
        contentMadeAt.map { Swift.min($0, version[modifiedBy]) } ?? version[modifiedBy]
    }

    /// True where both describe the same bytes, permissions and attributes on disk (mtime aside).
    public func hasSameContent(as other: Item) -> Bool {
        deleted == other.deleted && kind == other.kind
            && (deleted || (size == other.size && permissions == other.permissions && attributes == other.attributes
                && symlinkTarget == other.symlinkTarget && chunks.map(\.hash) == other.chunks.map(\.hash) && members == other.members))
    }

    /// True where both leave the same thing on disk: the same content and, unless deleted,
    /// the same mtime.
    public func matchesOnDisk(_ other: Item) -> Bool {
        hasSameContent(as: other) && (deleted || mtime == other.mtime)
    }

    /// The conflict-version identifier this content would get if it lost a conflict: its
    /// author and the author's counter when it was made.
    public var versionID: String { ConflictVersion.id(modifiedBy: modifiedBy, counter: contentCounter) }

    /// This item as `device` changed its content (or deleted it): a new version that is also
    /// a new content.
    public func changedContent(by device: DeviceID, after seen: VersionVector? = nil) -> Item {
        var next = self
        next.version = (seen ?? version).incremented(by: device)
        next.modifiedBy = device
        next.contentMadeAt = nil
        return next
    }

    /// This item as `device` changed its mtime alone: a new version that keeps the content's
    /// author and counter, so that it never makes a conflict version of the same bytes.
    public func changedMetadata(by device: DeviceID) -> Item {
        var next = self
        next.contentMadeAt = contentCounter
        next.version = version.incremented(by: device)
        return next
    }
}

/// A version of a document that lost a conflict and is kept until someone resolves it.
public struct ConflictVersion: Hashable, Sendable, Codable {
    /// Stable on every device: the losing change's author and its counter.
    public var id: String
    public var kind: ItemKind
    public var size: UInt64
    public var mtime: Int64
    public var permissions: Permissions
    public var attributes: ExtendedAttributes
    public var symlinkTarget: String?
    public var chunks: [ChunkRef]
    /// A package's inside, as `Item.members`.
    public var members: [PackageMember]
    /// The change that made this content: its author's counter alone. The rest of the vector
    /// of the item it came from depends on the order a device heard of things, and every
    /// device must hold the same conflict version.
    public var version: VersionVector
    public var modifiedBy: DeviceID

    public init(of item: Item) {
        self.id = item.versionID
        self.kind = item.kind
        self.size = item.size
        self.mtime = item.mtime
        self.permissions = item.permissions
        self.attributes = item.attributes
        self.symlinkTarget = item.symlinkTarget
        self.chunks = item.chunks
        self.members = item.members
        self.version = VersionVector([item.modifiedBy: item.contentCounter])
        self.modifiedBy = item.modifiedBy
    }

    /// This version with its vector cut to the change that made it, as ``init(of:)`` makes
    /// it; versions recorded with a whole vector compare equal to it once canonical.
    public var canonical: ConflictVersion {
        var copy = self
        copy.version = VersionVector([modifiedBy: version[modifiedBy]])
        return copy
    }

    public var executable: Bool { permissions.executable }

    public init(
        id: String, kind: ItemKind, size: UInt64, mtime: Int64, executable: Bool, permissions: Permissions? = nil,
        attributes: ExtendedAttributes = .empty, symlinkTarget: String?, chunks: [ChunkRef], members: [PackageMember] = [],
        version: VersionVector, modifiedBy: DeviceID
    ) {
        self.id = id
        self.kind = kind
        self.size = size
        self.mtime = mtime
        self.permissions = permissions.map { Permissions(mode: $0.bits, kind: kind) } ?? .defaults(for: kind, executable: executable)
        self.attributes = kind == .symlink ? .empty : attributes
        self.symlinkTarget = symlinkTarget
        self.chunks = chunks
        self.members = kind == .package ? members : []
        self.version = version
        self.modifiedBy = modifiedBy
    }

    static func id(modifiedBy: DeviceID, counter: UInt64) -> String {
        let author = modifiedBy.rawValue.filter { $0 != "-" }.prefix(8)
        return "\(author)-\(counter)"
    }
}

/// Entries written before permissions travelled say only whether the file was executable.
private enum LegacyKeys: String, CodingKey {
    case executable
}

extension Item {
    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try keys.decode(ItemKind.self, forKey: .kind)
        let executable = try decoder.container(keyedBy: LegacyKeys.self).decodeIfPresent(Bool.self, forKey: .executable) ?? false
        self.init(path: try keys.decode(RelativePath.self, forKey: .path), kind: kind,
                  deleted: try keys.decode(Bool.self, forKey: .deleted), size: try keys.decode(UInt64.self, forKey: .size),
                  mtime: try keys.decode(Int64.self, forKey: .mtime), executable: executable,
                  permissions: try keys.decodeIfPresent(Permissions.self, forKey: .permissions),
                  attributes: try keys.decodeIfPresent(ExtendedAttributes.self, forKey: .attributes) ?? .empty,
                  symlinkTarget: try keys.decodeIfPresent(String.self, forKey: .symlinkTarget),
                  chunks: try keys.decode([ChunkRef].self, forKey: .chunks),
                  members: try keys.decodeIfPresent([PackageMember].self, forKey: .members) ?? [],
                  version: try keys.decode(VersionVector.self, forKey: .version),
                  modifiedBy: try keys.decode(DeviceID.self, forKey: .modifiedBy),
                  contentMadeAt: try keys.decodeIfPresent(UInt64.self, forKey: .contentMadeAt),
                  conflicts: try keys.decode([ConflictVersion].self, forKey: .conflicts))
    }
}

extension ConflictVersion {
    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        let executable = try decoder.container(keyedBy: LegacyKeys.self).decodeIfPresent(Bool.self, forKey: .executable) ?? false
        self.init(id: try keys.decode(String.self, forKey: .id), kind: try keys.decode(ItemKind.self, forKey: .kind),
                  size: try keys.decode(UInt64.self, forKey: .size), mtime: try keys.decode(Int64.self, forKey: .mtime),
                  executable: executable, permissions: try keys.decodeIfPresent(Permissions.self, forKey: .permissions),
                  attributes: try keys.decodeIfPresent(ExtendedAttributes.self, forKey: .attributes) ?? .empty,
                  symlinkTarget: try keys.decodeIfPresent(String.self, forKey: .symlinkTarget),
                  chunks: try keys.decode([ChunkRef].self, forKey: .chunks),
                  members: try keys.decodeIfPresent([PackageMember].self, forKey: .members) ?? [],
                  version: try keys.decode(VersionVector.self, forKey: .version),
                  modifiedBy: try keys.decode(DeviceID.self, forKey: .modifiedBy))
    }
}
