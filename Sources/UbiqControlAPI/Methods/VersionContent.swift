import Foundation
import UbiqModel

/// The params of `versions.read`: the start of one version's content, so that a person can
/// compare a conflict's versions before keeping one (the web page shows them side by side).
public struct VersionsReadParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String
    /// A version id from `versions.list`, or `"current"`.
    public var version: VersionChoice
    /// How many bytes to read at most: 1 MiB when absent, never more than ``maximumBytes``.
    public var maxBytes: Int?

    /// The most one call reads.
    public static let maximumBytes = 4 << 20
    public static let defaultBytes = 1 << 20

    public init(container: ContainerID, path: String, version: VersionChoice, maxBytes: Int? = nil) {
        self.container = container
        self.path = path
        self.version = version
        self.maxBytes = maxBytes
    }
}

/// The result of `versions.read`.
public struct VersionsReadResult: Hashable, Sendable, Codable {
    public var path: String
    /// The id of the version read.
    public var version: String
    /// The whole version's size.
    public var size: Int64
    /// True when `data` holds only the start of the content.
    public var truncated: Bool
    /// The content, base64 on the wire.
    public var data: Data

    public init(path: String, version: String, size: Int64, truncated: Bool, data: Data) {
        self.path = path
        self.version = version
        self.size = size
        self.truncated = truncated
        self.data = data
    }
}

/// One file with unresolved conflict versions, as `conflicts.list` lists them.
public struct ConflictEntry: Hashable, Sendable, Codable {
    public var path: String
    /// How many conflict versions wait beside the current one.
    public var conflicts: Int
    /// The current version's size, time and writer.
    public var size: Int64
    public var mtime: Date
    public var modifiedBy: DeviceID

    public init(path: String, conflicts: Int, size: Int64, mtime: Date, modifiedBy: DeviceID) {
        self.path = path
        self.conflicts = conflicts
        self.size = size
        self.mtime = mtime
        self.modifiedBy = modifiedBy
    }
}
