import Foundation
import UbiqModel

/// The params of `items.list`: list the direct children of `path`, or of the root.
public struct ItemsListParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String?

    public init(container: ContainerID, path: String? = nil) {
        self.container = container
        self.path = path
    }
}

/// One item in an `items.list` result.
public struct ItemEntry: Hashable, Sendable, Codable {
    /// Container-relative path.
    public var path: String
    public var kind: ItemKind
    public var size: Int64
    public var mtime: Date
    public var executable: Bool
    /// The permission bits that travel, in octal (`0600`); none for symbolic links, nor from
    /// agents of before permissions travelled.
    public var permissions: String?
    public var symlinkTarget: String?
    /// The version vector in display form, e.g. `{ABCDEFG:1,HIJKLMN:2}`.
    public var version: String
    public var modifiedBy: DeviceID
    /// Unresolved conflict versions of this item.
    public var conflicts: Int
    /// True where this device holds the current content.
    public var downloaded: Bool
    /// The ignore line that stops the item syncing now (it keeps its last synced version);
    /// absent where it syncs.
    public var ignoredBy: IgnoreLine? = nil

    public init(
        path: String, kind: ItemKind, size: Int64, mtime: Date, executable: Bool = false, permissions: String? = nil,
        symlinkTarget: String? = nil, version: String, modifiedBy: DeviceID, conflicts: Int = 0,
        downloaded: Bool = true
    ) {
        self.path = path
        self.kind = kind
        self.size = size
        self.mtime = mtime
        self.executable = executable
        self.permissions = permissions
        self.symlinkTarget = symlinkTarget
        self.version = version
        self.modifiedBy = modifiedBy
        self.conflicts = conflicts
        self.downloaded = downloaded
    }
}
