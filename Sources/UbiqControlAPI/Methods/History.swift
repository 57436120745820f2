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
    /// The devices that keep it: this one first where it does, then the connected peers
    /// that said so.
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

/// The result of `history.list`: the versions kept here and on the connected peers, newest
/// first, and this device's history of the container as a whole.
public struct HistoryList: Hashable, Sendable, Codable {
    public var versions: [HistoryVersion]
    /// Versions kept on this device in the whole container, and their bytes.
    public var count: Int
    public var bytes: Int64
    /// The connected peers whose histories are listed beside this device's.
    public var peersAsked: [DeviceID]

    public init(versions: [HistoryVersion], count: Int, bytes: Int64, peersAsked: [DeviceID] = []) {
        self.versions = versions
        self.count = count
        self.bytes = bytes
        self.peersAsked = peersAsked
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
/// never taken for a conflict version's id; for a version only a peer keeps, `@` and that
/// peer's device ID follow (the number is the peer's).
public enum HistoryVersionID {
    public static func format(_ number: Int64, on device: DeviceID? = nil) -> String {
        device.map { "h\(number)@\($0)" } ?? "h\(number)"
    }

    /// The number in an id and the peer it names, if any; an `invalidParams` error for
    /// anything else.
    public static func parse(_ id: String) throws -> (number: Int64, device: DeviceID?) {
        let parts = id.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard id.hasPrefix("h"), let number = Int64(parts[0].dropFirst()), number > 0, parts.count == 1 || !parts[1].isEmpty else {
            throw RPCError(.invalidParams, "'\(id.prefix(200))' is not the id of a kept version (one of `ubiq history`'s, like h12 or h7@DEVICE)")
        }
        return (number, parts.count == 2 ? DeviceID(String(parts[1])) : nil)
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

/// The result of `history.prune`: what retention let go of now, and what the container's
/// history on this device keeps after it.
public struct HistoryPruneResult: Hashable, Sendable, Codable {
    public var removed: Int
    public var freedBytes: Int64
    public var count: Int
    public var bytes: Int64

    public init(removed: Int, freedBytes: Int64, count: Int, bytes: Int64) {
        self.removed = removed
        self.freedBytes = freedBytes
        self.count = count
        self.bytes = bytes
    }
}
