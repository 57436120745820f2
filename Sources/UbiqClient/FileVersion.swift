import Foundation
import UbiqControlAPI
import UbiqModel

/// iCloud's `NSFileVersion` on ubiq: the current version of a document, one of its
/// unresolved conflict versions or one of its past versions, and what a user does about them.
///
/// ubiq settles a document's conflict as a whole: keeping one version (``replaceItem()``
/// for a conflict version, ``markResolved()`` for the current one) drops every other
/// conflict version of the document, on every device. To keep a conflict version as well,
/// ``save(as:)`` it under a new name first.
public struct FileVersion: Sendable, Identifiable {
    public let container: ContainerID
    /// The document's container-relative path.
    public let path: String
    /// Stable on every device: the author's device and its counter.
    public let id: String
    public let modificationDate: Date
    /// The device that made this version.
    public let modifiedBy: DeviceID
    public let size: Int64
    /// The version vector, for display.
    public let versionVector: String
    /// True for the document's current version.
    public let isCurrent: Bool
    /// For a past version from the history: when it was replaced or deleted on this device.
    public let keptDate: Date?
    let client: UbiqAgentClient

    init(_ entry: VersionEntry, container: ContainerID, path: String, client: UbiqAgentClient) {
        self.container = container
        self.path = path
        id = entry.id
        modificationDate = entry.mtime
        modifiedBy = entry.modifiedBy
        size = entry.size
        versionVector = entry.version
        isCurrent = entry.current
        keptDate = nil
        self.client = client
    }

    init(past entry: HistoryVersion, container: ContainerID, client: UbiqAgentClient) {
        self.container = container
        path = entry.path
        id = entry.id
        modificationDate = entry.mtime
        modifiedBy = entry.modifiedBy
        size = entry.size
        versionVector = entry.version
        isCurrent = false
        keptDate = entry.keptAt
        self.client = client
    }

    /// True for a version the document had before, kept in the history.
    public var isPast: Bool { keptDate != nil }

    /// False for a conflict version (listed ones are unresolved), true for the current one
    /// and for past versions. A snapshot: list the versions again to see a resolution made
    /// elsewhere.
    public var isResolved: Bool { isCurrent || isPast }

    // MARK: finding versions

    public static func currentVersion(of path: String, in container: ContainerID, client: UbiqAgentClient) async throws -> FileVersion {
        FileVersion(try await client.versions(container: container, path: path).current, container: container, path: path, client: client)
    }

    /// The document's unresolved conflict versions, empty when it has no conflict.
    public static func unresolvedConflictVersions(of path: String, in container: ContainerID, client: UbiqAgentClient) async throws -> [FileVersion] {
        try await client.versions(container: container, path: path).conflicts.map {
            FileVersion($0, container: container, path: path, client: client)
        }
    }

    /// Every version of the document but the current one (`otherVersionsOfItem(at:)`): its
    /// unresolved conflict versions, then its past versions from this device's history,
    /// newest first.
    public static func otherVersions(of path: String, in container: ContainerID, client: UbiqAgentClient) async throws -> [FileVersion] {
        let conflicts = try await unresolvedConflictVersions(of: path, in: container, client: client)
        let past = try await client.history(container: container, path: path).versions.filter { $0.path == path }
        return conflicts + past.map { FileVersion(past: $0, container: container, client: client) }
    }

    // MARK: settling a conflict, going back

    /// Makes this version the document's current one, on every device: a conflict version
    /// drops the other conflict versions; a past version is restored (a new change; what it
    /// replaces goes to the history). Returns the new current version (a new `id`).
    @discardableResult
    public func replaceItem() async throws -> FileVersion {
        if isPast {
            _ = try await client.restore(container: container, path: path, version: id)
        } else {
            _ = try await client.resolve(container: container, path: path, keep: isCurrent ? .current : .version(id))
        }
        return try await Self.currentVersion(of: path, in: container, client: client)
    }

    /// Settles the document's conflict keeping its current content: every conflict version
    /// is dropped on every device (iCloud's `isResolved = true` on all of them, then
    /// `removeOtherVersionsOfItem`). Called on a conflict version it settles the same way.
    public func markResolved() async throws {
        _ = try await client.resolve(container: container, path: path, keep: .current)
    }

    /// Writes this version's content to `newPath` in the same container, which must not
    /// exist (an `RPCError` with code `.alreadyExists` otherwise). The new document syncs
    /// like any other; the conflict stays until resolved (call ``markResolved()`` to keep
    /// the current version beside it). Returns the new document's current version.
    @discardableResult
    public func save(as newPath: String) async throws -> FileVersion {
        let saved = try await client.saveVersion(container: container, path: path, version: .version(id), to: newPath)
        return try await Self.currentVersion(of: saved.path, in: container, client: client)
    }
}
