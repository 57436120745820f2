import Foundation
import UbiqIndex
import UbiqModel

/// Point-in-time restore: a folder put back as it was at a moment, from the history.
extension ContainerSync {
    /// What became of each path of a folder restore.
    public struct FolderRestore: Sendable {
        public var restored: [RelativePath] = []
        public var removed: [RelativePath] = []
        public var unchanged = 0
        public var failed: [(path: RelativePath, reason: String)] = []
    }

    /// Puts every file and package under `root` back as it was at `at` (ms since 1970): a file changed
    /// since gets the version it had then, one deleted since comes back, one created since
    /// moves to the history. Each is a local change, so every device follows. Versions that
    /// only connected peers keep count too (this device's own edits are in theirs). The version a
    /// path had at `at` is the first kept after `at` (it was in place until then), unless its
    /// own bytes were written after `at`; with none kept after `at`, the current one, unless
    /// written after `at` (created since).
    public func restoreFolder(_ root: RelativePath, at: Int64) async throws -> FolderRestore {
        let (known, peers) = try await knownHistory(under: root)
        let starts = ([try index.historySince(id)] + peers.map(\.since)).compactMap { $0 }
        guard let start = starts.min(), at >= start else {
            let since = starts.min().map { "starts at \(Self.display($0))" } ?? "is off"
            throw RestoreError(.beforeHistory, "the history of the container on this device and its connected peers \(since); choose a later time")
        }
        let moment = at * 1_000_000
        let byPath = Dictionary(grouping: known, by: \.path)
        let present = try index.items(id, under: root).filter { !$0.item.deleted }
        let current = present.filter { $0.item.kind.hasBytes }
        let paths = Set(byPath.keys).union(current.map(\.item.path)).sorted { $0.rawValue.utf8.lexicographicallyPrecedes($1.rawValue.utf8) }
        guard !paths.isEmpty || !present.isEmpty else {
            throw RestoreError(.versionNotFound, "nothing is at '\(root)' now or in the history of the container on this device and its connected peers")
        }
        let currentByPath = Dictionary(current.map { ($0.item.path, $0) }, uniquingKeysWith: { first, _ in first })
        var result = FolderRestore()
        for path in paths {
            let then = byPath[path]?.filter { $0.entry.keptAt > at }.min { ($0.entry.keptAt, $0.entry.id) < ($1.entry.keptAt, $1.entry.id) }
            let now = currentByPath[path]
            do {
                if let then, then.entry.item.latestChange <= moment {
                    // A peer's listing leaves a large file's chunks out; an empty file has none.
                    let listed = then.entry.item.size == 0 || !then.entry.item.chunks.isEmpty
                    if let now, now.item.version == then.entry.item.version
                        || (listed && now.item.chunks.map(\.hash) == then.entry.item.chunks.map(\.hash)) {
                        result.unchanged += 1
                    } else {
                        try await restore(then)
                        result.restored.append(path)
                    }
                } else if let now, then != nil || now.item.latestChange > moment {
                    try await removeKeepingLocally(now)
                    result.removed.append(path)
                } else {
                    result.unchanged += 1
                }
            } catch {
                result.failed.append((path, "\(error)"))
            }
        }
        logger.info("restored a folder to a point in time", metadata: [
            "path": "\(root)", "at": "\(Self.display(at))", "restored": "\(result.restored.count)", "removed": "\(result.removed.count)",
            "failed": "\(result.failed.count)",
        ])
        return result
    }

    /// Moves a file created since the moment restored to into the history and records its
    /// deletion here: asked for by a person, so the mass-deletion hold lets it pass.
    private func removeKeepingLocally(_ local: IndexedItem) async throws {
        if local.item.kind == .package {
            do { try removePackage(local, keeping: .deleted, by: device) } catch let error as DiskError where error.code == .alreadyExists || error.code == .io {
                throw RestoreError(.busy, "'\(local.item.path)' changed on disk; try again after it is scanned")
            }
            await localChanges([local.item.path], bypassHold: true)
            return
        }
        guard disk.stat(local.item.path) == local.stat else {
            throw RestoreError(.busy, "'\(local.item.path)' changed on disk; try again after it is scanned")
        }
        if try !removeKeeping(local, reason: .deleted, by: device) { try disk.remove(local.item.path) }
        await localChanges([local.item.path], bypassHold: true)
    }

    static func display(_ milliseconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
