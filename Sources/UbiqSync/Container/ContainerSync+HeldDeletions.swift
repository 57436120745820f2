import Foundation
import UbiqIndex
import UbiqModel

/// What is held back, for status and `deletions.list`.
public struct HeldDeletionsSummary: Sendable, Hashable {
    /// Files (and links and packages) held; folders go with them uncounted.
    public var count: Int
    /// Since when (wall time, ms).
    public var since: Int64
    /// Every held path, sorted.
    public var paths: [RelativePath]
}

/// A mass deletion waits for a person (DESIGN.md §3): a scan that would delete more than
/// `hold_deletions_over` files and more than half of the container's files records none of
/// them; they stay in the index, so peers keep them, until `deletions.confirm` records them
/// or `deletions.restore` fetches them back. Deletions a client made under a coordinated
/// write lease, a confirmation's own scan, a reset and the record stores' compaction pass.
extension ContainerSync {
    /// At most `threshold` files deleted at once are recorded without a person; 0 turns the
    /// hold off.
    public func setDeletionHold(over threshold: Int) {
        state.deletions.threshold = threshold
    }

    /// The deletions held for a person, nil when none are.
    public nonisolated var heldDeletions: HeldDeletionsSummary? {
        let hold = board.withLock { $0.deletions }
        guard case .holding(let since) = hold.phase else { return nil }
        return HeldDeletionsSummary(count: hold.files, since: since, paths: hold.paths.keys.sorted())
    }

    /// Records the held deletions whose files are still gone; how many paths that was.
    public func confirmDeletions() async throws -> Int {
        let paths = state.deletions.takeAll()
        guard !paths.isEmpty else { return 0 }
        logger.notice("held deletions confirmed", metadata: ["count": "\(paths.count)"])
        _ = try await leasedScan(Self.outermost(paths).map { Optional($0) }, bypassHold: true)
        return paths.count
    }

    /// Puts the files of the held deletions back here, from this device's copies or from
    /// peers; how many are being fetched.
    public func restoreDeletions() async throws -> Int {
        let paths = Set(state.deletions.takeAll())
        guard !paths.isEmpty else { return 0 }
        let restoring = try refetchMissing(under: nil, only: paths)
        logger.notice("held deletions restored; the files are fetched back", metadata: ["count": "\(restoring)"])
        requestPull()
        return restoring
    }

    /// The scan's writes without the deletions the hold keeps back.
    func holdingBackMassDeletions(_ writes: [ItemWrite], previous: [RelativePath: Item], roots: [RelativePath?]) -> [ItemWrite] {
        var deleted: [RelativePath: Bool] = [:]
        for write in writes where write.item.deleted {
            guard let before = previous[write.item.path], !before.deleted, !Self.agentsOwn(write.item.path) else { continue }
            deleted[write.item.path] = before.kind == .directory
        }
        state.deletions.scanned(roots, stillDeleted: Set(deleted.keys))
        switch state.deletions.scanFound(deleted, at: clock.now) {
        case .record:
            return writes
        case .holdBack:
            return writes.filter { deleted[$0.item.path] == nil }
        case .gather:
            return writes.filter { deleted[$0.item.path] == nil }
        }
    }

    /// Whether a path is in the record stores' scope, which only agents write: its logs go
    /// when a store is compacted or removed, never by a person's hand, and a missing disk is
    /// the folder check's to catch.
    static func agentsOwn(_ path: RelativePath) -> Bool {
        path == recordsFolder || path.isInside(recordsFolder)
    }

    private static let recordsFolder = try! RelativePath(RecordLogLayout.folder)

    /// The burst gathered is judged: held for a person, or recorded now.
    func deletionWindowEnded() async {
        let stats = try? index.statistics(id)
        let live = stats.map { $0.files + $0.symlinks + $0.packages } ?? 0
        guard let record = state.deletions.windowEnded(liveFiles: live, now: wallMilliseconds) else {
            if let held = heldDeletions {
                logger.warning("a scan would delete much of the container at once; held until a person confirms or restores it (ubiq deletions)",
                               metadata: ["count": "\(held.count)", "containerFiles": "\(live)", "sample": "\(held.paths.prefix(5).map(\.rawValue))"])
            }
            return
        }
        await localChanges(Set(record.map { Optional($0) }), bypassHold: true)
    }
}
