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

/// What `deletions.restore` did with the held deletions.
public struct RestoredDeletions: Sendable, Hashable {
    /// Items being put back, from this device's copies or from peers.
    public var restoring: [RelativePath]
    /// Files another device changed since: their deletions were recorded, and lose to those
    /// newer versions, which come back.
    public var newer: [RelativePath]
    /// Files no other device holds the version of: their deletions were recorded.
    public var gone: [RelativePath]
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

    /// The paths whose deletions are held or being gathered: their files are gone here, so
    /// peers hear of them as present without content.
    public nonisolated var contentHeldBack: Set<RelativePath> {
        board.withLock { $0.deletions.heldPathSet }
    }

    /// Peers hear again of the paths that went into or out of the hold since they last did
    /// (`DeletionHold.unannounced`); what fails is tried again after the next scan.
    func announceHoldChanges() {
        let due = state.deletions.unannounced
        guard !due.isEmpty else { return }
        do {
            try index.resequence(id, due)
            state.deletions.announcedAll()
            announce()
        } catch {
            logger.warning("could not announce the held deletions again; tried after the next scan",
                           metadata: ["error": "\(error)", "count": "\(due.count)"])
        }
    }

    /// Records the held deletions whose files are still gone; how many paths that was.
    public func confirmDeletions() async throws -> Int {
        try requireFolder()
        let paths = state.deletions.heldPaths
        guard !paths.isEmpty else { return 0 }
        // Let go of only once recorded: a folder that goes away meanwhile keeps them held.
        _ = try await leasedScan(Self.outermost(paths).map { Optional($0) }, bypassHold: true)
        _ = state.deletions.release(paths)
        announceHoldChanges()
        logger.notice("held deletions confirmed", metadata: ["count": "\(paths.count)"])
        return paths.count
    }

    /// Puts the files of the held deletions back here, from this device's copies or from
    /// peers. A file whose version no other device holds cannot come back as it was: where
    /// another device holds a newer version, the deletion is recorded and loses to it (the
    /// newer version comes back, as the sync rules say); where none does (deleted here before
    /// it was sent, or changed here since), it is recorded as a confirmation would.
    public func restoreDeletions() async throws -> RestoredDeletions {
        try requireFolder()
        let paths = Set(state.deletions.heldPaths)
        guard !paths.isEmpty else { return RestoredDeletions(restoring: [], newer: [], gone: []) }
        let (newer, gone) = try heldNowhereElse(paths)
        let restorable = Self.restorable(paths, unrecoverable: Set(newer + gone))
        let restoring = try refetchMissing(under: nil, only: restorable)
        logger.notice("held deletions restored; the files are fetched back",
                      metadata: ["count": "\(restoring.count)", "newer": "\(newer.count)", "gone": "\(gone.count)"])
        if !gone.isEmpty {
            logger.warning("held deletions whose files no other device holds were recorded; nothing can bring them back",
                           metadata: ["count": "\(gone.count)", "sample": "\(gone.prefix(5).map(\.rawValue))"])
        }
        // What is not put back is recorded: the unrecoverable files, and the folders that stay
        // away with them (seed 355683004 found such a folder left listed and missing).
        let left = paths.subtracting(restorable)
        if !left.isEmpty {
            _ = try await leasedScan(Self.outermost(Array(left)).map { Optional($0) }, bypassHold: true)
        }
        _ = state.deletions.release(Array(paths))
        announceHoldChanges()
        requestPull()
        return RestoredDeletions(restoring: restoring, newer: newer, gone: gone)
    }

    /// A file fetched back because it was missing here (a restore of held deletions, a
    /// folder reset) whose version no other device holds the content of, once its fetch
    /// failed: nothing can bring it back, so its deletion is recorded, as a restore records
    /// those it finds so at once. Two devices that restore the same file, each having counted
    /// on the other's copy before it heard that the other's was gone too, would otherwise
    /// wait for each other for ever. Not in an on-demand container, where a file whose
    /// content is elsewhere is listed as it is. Returns whether it recorded the deletion.
    func recordedUnfetchable(_ need: Item) -> Bool {
        guard !onDemand, !need.deleted, need.kind.hasBytes,
              let local = try? index.item(id, need.path), !local.downloaded, !local.item.deleted,
              local.item.version == need.version,
              (try? index.holders(id, need.path, version: need.version))?.isEmpty == true
        else { return false }
        let tombstone = LocalChanges.tombstone(of: local.item, by: device, now: clock.wallNanoseconds)
        do {
            try record([ItemWrite(item: tombstone, stat: nil, settlesNeed: true)], origin: .local, previous: [need.path: local.item])
        } catch {
            logger.warning("could not record the deletion of a file no device holds; will retry",
                           metadata: ["path": "\(need.path)", "error": "\(error)"])
            return false
        }
        state.settled([need.path])
        announce()
        logger.warning("a file fetched back is held by no other device: its deletion was recorded; nothing can bring it back",
                       metadata: ["path": "\(need.path)", "version": "\(need.version)"])
        return true
    }

    /// Of the held files (and links and packages), those whose indexed version no other
    /// device is known to hold the content of: `newer` where another device holds a version
    /// this one has not seen, `gone` where none does.
    private func heldNowhereElse(_ paths: Set<RelativePath>) throws -> (newer: [RelativePath], gone: [RelativePath]) {
        let items = try index.items(id, at: Array(paths)).values.map(\.item).filter { $0.kind.hasBytes && !$0.deleted }
        let holders = try index.holders(id, of: Dictionary(items.map { ($0.path, $0.version) }, uniquingKeysWith: { a, _ in a }))
        let held = try index.heldVersions(id, at: items.map(\.path).filter { holders[$0] == nil })
        var newer: [RelativePath] = [], gone: [RelativePath] = []
        for item in items.sorted(by: { $0.path < $1.path }) where holders[item.path] == nil {
            if held[item.path, default: []].contains(where: { !item.version.includes($0) }) { newer.append(item.path) } else { gone.append(item.path) }
        }
        return (newer, gone)
    }

    /// The held paths to put back: not the unrecoverable ones, nor a folder whose held
    /// contents are all unrecoverable (an empty folder of its own is put back).
    static func restorable(_ paths: Set<RelativePath>, unrecoverable: Set<RelativePath>) -> Set<RelativePath> {
        func ancestors(of paths: some Sequence<RelativePath>) -> Set<RelativePath> {
            var result = Set<RelativePath>()
            for path in paths {
                var parent = path.parent
                while let folder = parent, result.insert(folder).inserted { parent = folder.parent }
            }
            return result
        }
        let kept = paths.subtracting(unrecoverable)
        // Files, and folders with nothing unrecoverable inside: what is put back for itself.
        let solid = kept.subtracting(ancestors(of: unrecoverable))
        return solid.union(kept.intersection(ancestors(of: solid)))
    }

    /// A peer changed or deleted files whose deletions are held here: each of those deletions
    /// is recorded now, so the peer's change meets it as the sync rules say (a modification
    /// beats a deletion made apart; two deletions agree), and is not judged against a file the
    /// index lists and the disk no longer has. A version this device has seen is no change.
    /// A held folder is not recorded for a peer's change of its own attributes: that would
    /// record the deletions of all it holds without a person; the peer's folder is made again
    /// here, and what it held stays held.
    func recordHeldDeletions(changedBy items: [Item]) throws {
        guard state.deletions.holdsAny else { return }
        let heldItems = items.filter { state.deletions.holdsFile($0.path) }
        guard !heldItems.isEmpty else { return }
        let locals = try index.items(id, at: heldItems.map(\.path))
        let changed = heldItems.filter { remote in
            locals[remote.path].map { !$0.item.version.includes(remote.version) } ?? true
        }.map(\.path)
        guard !changed.isEmpty else { return }
        // Folders alone left: nothing for a person to decide; their deletions are recorded too.
        let recording = changed + state.deletions.foldersAlone(after: changed)
        // Let go of only once recorded: while the folder is unavailable they stay held.
        try scan(Self.outermost(recording).map { Optional($0) }, bypassHold: true)
        _ = state.deletions.release(recording)
        announceHoldChanges()
        logger.info("a peer changed files whose deletions were held; those deletions are recorded",
                    metadata: ["count": "\(changed.count)", "sample": "\(changed.prefix(5).map(\.rawValue))"])
    }

    /// The scan's writes without the deletions the hold keeps back; those inside
    /// `coordinated` (nil: everywhere) a client made under a write lease, and pass.
    func holdingBackMassDeletions(_ writes: [ItemWrite], previous: [RelativePath: Item], roots: [RelativePath?],
                                  coordinated: [RelativePath?]) -> [ItemWrite] {
        var deleted: [RelativePath: Bool] = [:]
        for write in writes where write.item.deleted {
            guard let before = previous[write.item.path], !before.deleted, !Self.agentsOwn(write.item.path) else { continue }
            if coordinated.contains(where: write.item.path.isWithin) { continue }
            deleted[write.item.path] = before.kind == .directory
        }
        state.deletions.scanned(roots, stillDeleted: Set(deleted.keys))
        switch state.deletions.scanFound(deleted, at: clock.now) {
        case .record:
            return writes
        case .holdBack, .gather:
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
