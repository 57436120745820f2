import Foundation
import UbiqModel

/// The params of `history.list` and `trash.list`: a container and, optionally, a path (a
/// file, or a folder whose contents are meant; all of the container when absent).
public struct HistoryListParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String?

    public init(container: ContainerID, path: String? = nil) {
        self.container = container
        self.path = path
    }
}

/// One version in the history: a file this device replaced or deleted for a change
/// (its own or a peer's), kept until retention lets it go.
public struct HistoryVersion: Hashable, Sendable, Codable {
    /// The id to pass as `version` to `history.restore`.
    public var id: String
    public var path: String
    public var size: Int64
    /// The version's own modification time.
    public var mtime: Date
    /// The device whose change made this version.
    public var modifiedBy: DeviceID
    /// The version vector in display form.
    public var version: String
    /// When it left its path.
    public var keptAt: Date
    /// `"replaced"`, `"deleted"`, or `"resolved"` (a conflict version a resolution dropped).
    public var reason: String
    /// The device whose change replaced or deleted it.
    public var by: DeviceID
    /// The devices known to hold it (this one).
    public var devices: [DeviceID]

    public init(id: String, path: String, size: Int64, mtime: Date, modifiedBy: DeviceID, version: String, keptAt: Date,
                reason: String, by: DeviceID, devices: [DeviceID]) {
        self.id = id
        self.path = path
        self.size = size
        self.mtime = mtime
        self.modifiedBy = modifiedBy
        self.version = version
        self.keptAt = keptAt
        self.reason = reason
        self.by = by
        self.devices = devices
    }
}

/// The result of `history.list`: the kept versions, newest first, and the container's
/// history as a whole.
public struct HistoryList: Hashable, Sendable, Codable {
    public var versions: [HistoryVersion]
    /// Versions kept in the whole container, and their bytes.
    public var count: Int
    public var bytes: Int64

    public init(versions: [HistoryVersion], count: Int, bytes: Int64) {
        self.versions = versions
        self.count = count
        self.bytes = bytes
    }
}

/// One deleted file of `trash.list`: deleted now, with its last version restorable.
public struct TrashEntry: Hashable, Sendable, Codable {
    public var path: String
    public var deletedAt: Date
    public var deletedBy: DeviceID
    public var size: Int64
    /// The last version's id, for `history.restore`.
    public var version: String

    public init(path: String, deletedAt: Date, deletedBy: DeviceID, size: Int64, version: String) {
        self.path = path
        self.deletedAt = deletedAt
        self.deletedBy = deletedBy
        self.size = size
        self.version = version
    }
}

/// The params of `history.restore`: make a kept version of `path` current again.
public struct HistoryRestoreParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String
    /// An id from `history.list` or `trash.list`.
    public var version: String

    public init(container: ContainerID, path: String, version: String) {
        self.container = container
        self.path = path
        self.version = version
    }
}

/// The result of `history.restore`: the path, the version restored, and the new version
/// vector it is current under (a new change here, which reaches every device).
public struct HistoryRestoreResult: Hashable, Sendable, Codable {
    public var path: String
    public var restored: String
    public var version: String
    public var size: Int64

    public init(path: String, restored: String, version: String, size: Int64) {
        self.path = path
        self.restored = restored
        self.version = version
        self.size = size
    }
}

/// A kept version's id as clients see it: `h` and the index's number for it, so that it is
/// never taken for a conflict version's id.
public enum HistoryVersionID {
    public static func format(_ number: Int64) -> String { "h\(number)" }

    /// The number in an id; an `invalidParams` error for anything else.
    public static func parse(_ id: String) throws -> Int64 {
        guard id.hasPrefix("h"), let number = Int64(id.dropFirst()), number > 0 else {
            throw RPCError(.invalidParams, "'\(id)' is not the id of a kept version (one of `ubiq history`'s, like h12)")
        }
        return number
    }
}

/// The params of `history.restoreFolder`: put everything under `path` back as it was at `at`.
public struct HistoryRestoreFolderParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    /// A folder (or a file) inside the container.
    public var path: String
    public var at: Date

    public init(container: ContainerID, path: String, at: Date) {
        self.container = container
        self.path = path
        self.at = at
    }
}

/// What `history.restoreFolder` did: files given back the version they had then, files
/// created since moved to the history, and what could not be done (each with why).
public struct HistoryRestoreFolderResult: Hashable, Sendable, Codable {
    public struct Failure: Hashable, Sendable, Codable {
        public var path: String
        public var reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    public var restored: [String]
    public var removed: [String]
    public var unchanged: Int
    public var failed: [Failure]

    public init(restored: [String], removed: [String], unchanged: Int, failed: [Failure]) {
        self.restored = restored
        self.removed = removed
        self.unchanged = unchanged
        self.failed = failed
    }
}
