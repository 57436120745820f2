import Foundation
import UbiqIndex
import UbiqModel

/// What `container.reset` did.
public struct FolderResetSummary: Sendable, Hashable {
    /// The folder's new marker ID.
    public var folder: String
    /// Items the index held that the folder lacks: fetched again, from this device's other
    /// copies or from peers, never deleted on them.
    public var refetching: Int
}

/// A person says the folder at the container's path is the one to sync, as it is now (a new,
/// empty disk; a folder put back from elsewhere): `ubiq container reset`.
extension ContainerSync {
    public func resetFolder() async throws -> FolderResetSummary {
        try disk.prepare()
        try markFolderAnew()
        try requireFolder()
        let missing = try refetchMissing(under: nil).count
        logger.notice("container folder reset; what it lacks is fetched again", metadata: ["missing": "\(missing)"])
        await localChanges([nil])
        requestPull()
        return FolderResetSummary(folder: (try index.rememberedFolder(id))?.folder ?? "", refetching: missing)
    }

    /// Marks what the index holds under `root` (nil: everywhere) and the folder lacks as not
    /// here, and asks the puller for it: no scan reads it as deleted, and its content comes
    /// back from wherever it is held. Returns those items' paths.
    func refetchMissing(under root: RelativePath?, only: Set<RelativePath>? = nil) throws -> [RelativePath] {
        let baselines = try index.baselines(id, under: [root])[0]
        let ignores = ignoreRules
        // Only what is there counts: changed entries are let go as they are found.
        let outcome = try disk.scan(under: root, ignoring: ignores, baseline: { baselines[$0]?.stat },
                                    package: { [self] in recordedPackage($0) }, known: { baselines.ownKey($0) },
                                    knownCount: baselines.count, changes: { _ in true })
        let gone = baselines.compactMap { path, baseline in
            !baseline.deleted && baseline.downloaded && !outcome.seen.contains(path) && (only?.contains(path) ?? true) ? path : nil
        }
        // An ignored path is not seen by a scan, and is not missing either: it is not synced.
        let items = try index.items(id, at: gone).values.map(\.item).filter {
            ignores.ignoring($0.path, isDirectory: $0.kind == .directory) == nil
        }
        guard !items.isEmpty else { return [] }
        try record(items.map { ItemWrite(item: $0, stat: nil, downloaded: false) }, origin: .local)
        for item in items { try index.requestFetch(id, item) }
        state.fetchRequestsMayWait = true
        announce()
        return items.map(\.path).sorted()
    }
}
