/// What a device does with a peer's version of an item it may also hold (DESIGN.md §3).
public enum Reconciliation: Sendable, Equatable {
    /// Ours is the same or newer: nothing to do; the peer will catch up.
    case keepLocal
    /// Theirs is causally newer: make it ours.
    case applyRemote(Item)
    /// Concurrent changes: `merged` is the result every device computes alike. When it leaves
    /// another thing on disk than the local item (content or mtime), the file must change.
    case merge(merged: Item, contentFromRemote: Bool)

    /// Decides, from the two items alone, what every device does with them.
    public static func reconcile(local: Item?, remote: Item) -> Reconciliation {
        guard let local else { return .applyRemote(remote) }
        switch local.version.compare(to: remote.version) {
        case .dominates:
            return .keepLocal
        case .dominated:
            return .applyRemote(remote)
        case .equal:
            var conflicts = mergedConflicts(local, remote)
            if !local.hasSameContent(as: remote) {
                // Equal vectors should mean equal content; should they ever differ, every device
                // still picks the same current version and keeps the other.
                let loser = winsConflict(remote, over: local) ? local : remote
                if keepsAsConflict(loser: loser, winner: loser == local ? remote : local),
                   !conflicts.contains(where: { $0.id == loser.versionID }) {
                    conflicts.append(ConflictVersion(of: loser))
                }
                let winner = loser == local ? remote : local
                var merged = winner
                merged.conflicts = conflicts.sorted { $0.id < $1.id }
                return .merge(merged: merged, contentFromRemote: winner == remote)
            }
            if !local.deleted && local.mtime != remote.mtime {
                // The same vector with another mtime (a folder whose time two devices set
                // apart): every device takes the later one, so that they still converge.
                var merged = local.mtime > remote.mtime ? local : remote
                merged.conflicts = conflicts
                return .merge(merged: merged, contentFromRemote: remote.mtime > local.mtime)
            }
            if conflicts == local.conflicts { return .keepLocal }
            var merged = local
            merged.conflicts = conflicts
            return .merge(merged: merged, contentFromRemote: false)
        case .concurrent:
            let version = local.version.merged(with: remote.version)
            let kept = survivors(local, remote)
            // A version's identity is its author's counter in the item's vector, so one whose
            // author has a later change in the merged vector cannot be current: it stays a
            // conflict version under its own identity.
            let eligible = kept.filter { $0.deleted || version[$0.modifiedBy] == $0.version[$0.modifiedBy] }
            guard let winner = (eligible.isEmpty ? kept : eligible).max(by: { winsConflict($1, over: $0) }) else {
                var merged = local
                merged.version = version
                return .merge(merged: merged, contentFromRemote: false)
            }
            var merged = winner
            merged.version = version
            // Where none was eligible, the winner keeps its identity under the merged vector.
            if !winner.deleted, version[winner.modifiedBy] != winner.contentCounter { merged.contentMadeAt = winner.contentCounter }
            merged.conflicts = kept.filter { $0.versionID != winner.versionID && keepsAsConflict(loser: $0, winner: winner) }
                .map(ConflictVersion.init(of:)).sorted { $0.id < $1.id }
            return .merge(merged: merged, contentFromRemote: !merged.matchesOnDisk(local))
        }
    }

    /// The versions (current contents, deletions and conflict versions) of two concurrent
    /// items that neither side has superseded: one side's version survives when the other
    /// holds it too or has not seen it. Seen means the other's vector covers the change that
    /// made it (its author's counter), as with dotted version vectors (Preguiça et al.,
    /// "Dotted Version Vectors", 2010), so a version one device already replaced is not
    /// brought back by a device that merged it before hearing of the replacement.
    static func survivors(_ local: Item, _ remote: Item) -> [Item] {
        let localVersions = versions(of: local), remoteVersions = versions(of: remote)
        let localIDs = Set(localVersions.map(\.versionID)), remoteIDs = Set(remoteVersions.map(\.versionID))
        var kept: [String: Item] = [:]
        for (candidates, otherIDs, other) in [(localVersions, remoteIDs, remote.version), (remoteVersions, localIDs, local.version)] {
            for candidate in candidates where otherIDs.contains(candidate.versionID) || other[candidate.modifiedBy] < candidate.contentCounter {
                if let same = kept[candidate.versionID], !winsConflict(candidate, over: same) { continue }
                kept[candidate.versionID] = candidate
            }
        }
        return kept.values.sorted { $0.versionID < $1.versionID }
    }

    /// The item's current content (or deletion) and its conflict versions, each as an item
    /// with the vector it was written with.
    private static func versions(of item: Item) -> [Item] {
        var current = item
        current.conflicts = []
        return [current] + item.conflicts.map { conflict in
            Item(path: item.path, kind: conflict.kind, size: conflict.size, mtime: conflict.mtime, permissions: conflict.permissions,
                 attributes: conflict.attributes, symlinkTarget: conflict.symlinkTarget, chunks: conflict.chunks, members: conflict.members,
                 version: conflict.canonical.version,
                 modifiedBy: conflict.modifiedBy)
        }
    }

    /// The conflict choice: modification beats deletion; otherwise the later change (mtime;
    /// a package's latest change inside), ties broken by the larger device ID. Every device
    /// picks the same winner.
    public static func winsConflict(_ a: Item, over b: Item) -> Bool {
        if a.deleted != b.deleted { return !a.deleted }
        if a.latestChange != b.latestChange { return a.latestChange > b.latestChange }
        if a.modifiedBy != b.modifiedBy { return a.modifiedBy > b.modifiedBy }
        return a.versionID > b.versionID
    }

    static func keepsAsConflict(loser: Item, winner: Item) -> Bool {
        !loser.deleted && loser.kind != .directory && !loser.hasSameContent(as: winner)
    }

    /// Conflict versions both sides keep, plus those one side holds that the other has not
    /// seen yet. A version the other side has seen but no longer lists was resolved there.
    static func mergedConflicts(_ a: Item, _ b: Item) -> [ConflictVersion] {
        var result: [String: ConflictVersion] = [:]
        let aIDs = Set(a.conflicts.map(\.id)), bIDs = Set(b.conflicts.map(\.id))
        for (side, otherIDs, other) in [(a.conflicts, bIDs, b), (b.conflicts, aIDs, a)] {
            for c in side where otherIDs.contains(c.id) || !seen(c, by: other) {
                // Both sides may hold one version with different mtimes: both keep the later.
                if let kept = result[c.id], kept.mtime >= c.mtime { continue }
                result[c.id] = c.canonical
            }
        }
        return result.values.sorted { $0.id < $1.id }
    }

    private static func seen(_ version: ConflictVersion, by item: Item) -> Bool {
        switch version.canonical.version.compare(to: item.version) {
        case .equal, .dominated: return true
        case .dominates, .concurrent: return false
        }
    }
}
