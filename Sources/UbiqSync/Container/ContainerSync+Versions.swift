import Foundation
import UbiqIndex
import UbiqModel

/// What a user sees and settles: status counters, conflict versions, resolution.
extension ContainerSync {
    public struct Status: Sendable {
        public var statistics: ContainerStatistics
        public var caseConflicts: [String]
        public var scanning: Bool
    }

    /// Answers at once, whatever the actor is doing (status must stay responsive during a
    /// long scan or transfer).
    public nonisolated func status() throws -> Status {
        let board = board.withLock { $0 }
        return Status(statistics: try index.statistics(id), caseConflicts: board.caseConflicts.keys.map(\.rawValue).sorted(),
                      scanning: board.scanning)
    }

    public nonisolated func children(of path: RelativePath?) throws -> [IndexedItem] {
        try index.children(id, of: path)
    }

    public nonisolated func item(at path: RelativePath) throws -> IndexedItem? {
        try index.item(id, path)
    }

    /// The indexed items at these paths, in one read.
    public nonisolated func items(at paths: [RelativePath]) throws -> [RelativePath: IndexedItem] {
        try index.items(id, at: paths)
    }

    /// Settles a path's conflict: keep the current version (`nil`) or make the kept version
    /// with that ID current. Either way the conflict versions are dropped here, and the new
    /// version vector makes every other device drop them too.
    public func resolve(_ path: RelativePath, keeping versionID: String?) async throws -> Item {
        guard let current = try index.item(id, path), !current.item.deleted || !current.item.conflicts.isEmpty else {
            throw ResolveError(.notFound, "'\(path)' is not in container \(id)")
        }
        let keepsCurrent = versionID == nil || versionID == current.item.versionID
        if keepsCurrent && current.item.conflicts.isEmpty { return current.item }
        var resolved = current.item
        var stat = current.stat
        if !keepsCurrent, let versionID {
            guard let version = current.item.conflicts.first(where: { $0.id == versionID }) else {
                throw ResolveError(.versionNotFound, "'\(path)' has no conflict version '\(versionID)'; see `ubiq versions`")
            }
            // A package's recorded stat is its fingerprint, checked as it is replaced.
            if disk.stat(path) != current.stat, !current.item.deleted, current.item.kind != .package {
                throw ResolveError(.busy, "'\(path)' changed on disk; try again after it is scanned")
            }
            let now = clock.wallNanoseconds
            if version.kind == .package || current.item.kind == .package {
                stat = try await resolvePackage(current, keeping: version, at: now)
            } else if version.kind == .symlink {
                stat = try disk.makeSymlink(path, target: version.symlinkTarget ?? "", mtime: now)
            } else {
                let staged = try await assemble(version.chunks, path: path)
                let metadata = FileMetadata(permissions: version.permissions, mtime: now, attributes: version.attributes)
                let kept = try plannedHistory(of: current, reason: .replaced, by: device).map { try reserveHistory([$0]) } ?? []
                do { stat = try disk.commit(staged, to: path, metadata: metadata, keepReplacedAs: kept.first?.name) } catch {
                    dropHistory(kept)
                    staged.discard()
                    throw error
                }
            }
            resolved.kind = version.kind
            resolved.deleted = false
            resolved.size = version.size
            resolved.chunks = version.chunks
            resolved.members = version.members
            resolved.permissions = version.permissions
            resolved.attributes = version.attributes
            resolved.symlinkTarget = version.symlinkTarget
            resolved.mtime = now
        }
        resolved.conflicts = []
        resolved = resolved.changedContent(by: device, after: current.item.version)
        try record([ItemWrite(item: resolved, stat: stat)], origin: .local)
        try pruneVersions(of: resolved, previous: current.item.conflicts)
        announce()
        logger.info("conflict resolved", metadata: ["path": "\(path)", "kept": "\(versionID ?? "current")"])
        return resolved
    }
}

/// Why a resolution was refused.
public struct ResolveError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notFound
        case versionNotFound
        case busy
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
