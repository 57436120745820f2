import Foundation
import UbiqIndex
import UbiqModel

/// The history: a file this device replaces or deletes for a peer's change (or for a
/// restore or a resolution here) goes to `.ubiq/history/` and the index's `history` table
/// instead of being freed, and can be made current again.
///
/// A row is written before its file moves and dropped when the move fails, so a crash in
/// between leaves a row without a file, which the next start drops (``reconcileHistory()``):
/// a version is never in the history folder without the row that names it for long.
extension ContainerSync {
    /// Now on the wall clock, in the history's unit.
    nonisolated var wallMilliseconds: Int64 { clock.wallNanoseconds / 1_000_000 }

    /// The entry that would keep `local`'s file (or package), about to be replaced or deleted by `by`'s
    /// change; nil where nothing is kept (history off, or no downloaded file there).
    func plannedHistory(of local: IndexedItem?, reason: HistoryEntry.Reason, by: DeviceID) -> HistoryEntry? {
        guard historyRetention != nil, let local, local.item.kind.hasBytes, !local.item.deleted, local.downloaded else { return nil }
        return HistoryEntry(item: local.item, name: disk.newHistoryName(), keptAt: wallMilliseconds, reason: reason, by: by)
    }

    /// Stores entries whose files are about to move into the history.
    func reserveHistory(_ entries: [HistoryEntry]) throws -> [HistoryEntry] {
        try index.addHistory(id, entries)
    }

    /// Forgets entries whose files did not move.
    func dropHistory(_ entries: [HistoryEntry]) {
        guard !entries.isEmpty else { return }
        do { try index.removeHistory(id, ids: entries.map(\.id)) } catch {
            logger.warning("could not forget kept versions that were not kept; the next start does", metadata: ["error": "\(error)"])
        }
    }

    /// Deletes the file of `local` by moving it into the history; false where nothing is kept
    /// (the caller deletes it the ordinary way).
    func removeKeeping(_ local: IndexedItem, reason: HistoryEntry.Reason, by: DeviceID) throws -> Bool {
        guard let planned = plannedHistory(of: local, reason: reason, by: by) else { return false }
        let entries = try reserveHistory([planned])
        do {
            guard try disk.removeKeeping(local.item.path, as: planned.name, expected: local.stat) else {
                dropHistory(entries)
                return false
            }
        } catch {
            dropHistory(entries)
            throw error
        }
        logger.debug("kept in the history", metadata: ["path": "\(local.item.path)", "reason": "\(reason.name)"])
        return true
    }

    /// Keeps a copy of each file a client is about to write under the write lease `lease`:
    /// its own edits in place would otherwise be in no history on this device. A copy whose
    /// file the client did not change goes when the lease ends (``leaseEnded()``).
    public func keepBeforeWrite(_ paths: [RelativePath], lease: UInt64) {
        guard historyRetention != nil, !paths.isEmpty, let items = try? index.items(id, at: paths) else { return }
        for path in paths {
            guard let indexed = items[path], let stat = indexed.stat, disk.stat(path) == stat,
                  let planned = plannedHistory(of: indexed, reason: .replaced, by: device) else { continue }
            do {
                let entries = try reserveHistory([planned])
                do { try disk.copyToHistory(path, as: planned.name, expected: stat) } catch {
                    dropHistory(entries)
                    throw error
                }
                writeLeaseKeeps[lease, default: []].append(LeaseKeep(entry: entries[0], stat: stat))
            } catch {
                logger.warning("could not keep the version a client is about to write", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// Drops the copies kept for leases no longer held whose files were not changed.
    func leaseEnded() async {
        guard !writeLeaseKeeps.isEmpty, let leases else { return }
        let held = Set(await leases.heldLeases.map(\.id))
        for (lease, keeps) in writeLeaseKeeps where !held.contains(lease) {
            writeLeaseKeeps[lease] = nil
            let unchanged = keeps.filter { disk.stat($0.entry.path) == $0.stat }
            dropHistory(unchanged.map(\.entry))
            for keep in unchanged { try? disk.removeHistory(named: keep.entry.name) }
        }
    }

    /// Moves the stored file of a conflict version a resolution dropped into the history;
    /// false where it is not kept (history off, not a file, or its content is now current).
    func keepDropped(_ version: ConflictVersion, of item: Item, storedAs name: String) throws -> Bool {
        guard historyRetention != nil, version.kind.hasBytes,
              item.deleted || item.chunks.map(\.hash) != version.chunks.map(\.hash) || item.members != version.members else {
            return false
        }
        let kept = Item(path: item.path, kind: version.kind, size: version.size, mtime: version.mtime, permissions: version.permissions,
                        attributes: version.attributes, chunks: version.chunks, members: version.members, version: version.version,
                        modifiedBy: version.modifiedBy)
        let entries = try reserveHistory([HistoryEntry(item: kept, name: disk.newHistoryName(), keptAt: wallMilliseconds,
                                                       reason: .resolved, by: item.modifiedBy)])
        do { try disk.moveVersionToHistory(named: name, as: entries[0].name) } catch {
            dropHistory(entries)
            throw error
        }
        return true
    }

    /// Notes when the history began (for point-in-time restores), drops rows whose file is
    /// missing (a crash before the move) and removes files no row names.
    func reconcileHistory() {
        do {
            if historyRetention != nil { try index.noteHistoryStart(id, at: wallMilliseconds) }
            let names = try disk.historyNames()
            let entries = try index.history(id)
            let named = Set(entries.map(\.name))
            let missing = entries.filter { !names.contains($0.name) }
            if !missing.isEmpty {
                try index.removeHistory(id, ids: missing.map(\.id))
                logger.info("forgot kept versions whose files are gone", metadata: ["count": "\(missing.count)"])
            }
            for name in names.subtracting(named) { try disk.removeHistory(named: name) }
        } catch {
            logger.warning("could not check the history against its folder", metadata: ["error": "\(error)"])
        }
    }

    /// Lets go of what retention no longer keeps (at start and every few minutes).
    func pruneHistory() {
        do { _ = try pruneHistoryNow() } catch {
            logger.warning("could not prune the history", metadata: ["error": "\(error)"])
        }
    }

    /// Lets go of what retention no longer keeps, now (`history.prune`): how many versions
    /// and bytes went. A version whose content is the current one's or a conflict version's
    /// at its path is never pruned: it may be the only copy.
    public func pruneHistoryNow() throws -> (removed: Int, bytes: UInt64) {
        guard let retention = historyRetention else { return (0, 0) }
        let entries = try index.history(id)
        guard !entries.isEmpty else { return (0, 0) }
        let current = try index.items(id, at: Array(Set(entries.map(\.path)))).mapValues(\.item)
        let protected = HistoryRetention.protected(entries, current: current)
        let removed = retention.prune(entries, now: wallMilliseconds, protected: protected)
        guard !removed.isEmpty else { return (0, 0) }
        try index.removeHistory(id, ids: removed)
        var bytes: UInt64 = 0
        for entry in entries where removed.contains(entry.id) {
            bytes += entry.item.size
            do { try disk.removeHistory(named: entry.name) } catch {
                logger.warning("could not remove a pruned version's file; the next start does", metadata: ["error": "\(error)"])
            }
        }
        logger.info("pruned the history", metadata: ["removed": "\(removed.count)", "kept": "\(entries.count - removed.count)"])
        return (removed.count, bytes)
    }
}

/// What clients read of the history, without waiting for the actor.
extension ContainerSync {
    /// The kept versions of `root` and everything under it (all when nil), newest first.
    public nonisolated func history(under root: RelativePath?) throws -> [HistoryEntry] {
        let entries = try index.history(id)
        guard let root else { return entries }
        return entries.filter { $0.path == root || $0.path.isInside(root) }
    }

    /// How many versions the container's history keeps, and their bytes.
    public nonisolated func historySize() throws -> (count: Int, bytes: UInt64) {
        try index.historySize(id)
    }
}

/// A copy kept when a client took a write lease, with the file's stat then.
struct LeaseKeep: Sendable {
    var entry: HistoryEntry
    var stat: FileStat
}
