/// What a device does with a peer's version of an item it may also hold (DESIGN.md §3).
public enum Reconciliation: Sendable, Equatable {
    /// Ours is the same or newer: nothing to do; the peer will catch up.
    case keepLocal
    /// Theirs is causally newer: make it ours.
    case applyRemote(Item)
    /// Concurrent changes: `merged` is the result every device computes alike. When its
    /// content is the remote's, the file must be replaced.
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
            let conflicts = mergedConflicts(local, remote)
            if conflicts == local.conflicts { return .keepLocal }
            var merged = local
            merged.conflicts = conflicts
            return .merge(merged: merged, contentFromRemote: false)
        case .concurrent:
            let remoteWins = winsConflict(remote, over: local)
            var merged = remoteWins ? remote : local
            let loser = remoteWins ? local : remote
            merged.version = local.version.merged(with: remote.version)
            var conflicts = mergedConflicts(local, remote)
            if keepsAsConflict(loser: loser, winner: merged), !conflicts.contains(where: { $0.id == loser.versionID }) {
                conflicts.append(ConflictVersion(of: loser))
            }
            merged.conflicts = conflicts.sorted { $0.id < $1.id }
            return .merge(merged: merged, contentFromRemote: remoteWins && !remote.hasSameContent(as: local))
        }
    }

    /// The conflict choice: modification beats deletion; otherwise the later mtime, ties
    /// broken by the larger device ID. Every device picks the same winner.
    public static func winsConflict(_ a: Item, over b: Item) -> Bool {
        if a.deleted != b.deleted { return !a.deleted }
        if a.mtime != b.mtime { return a.mtime > b.mtime }
        return a.modifiedBy > b.modifiedBy
    }

    static func keepsAsConflict(loser: Item, winner: Item) -> Bool {
        !loser.deleted && loser.kind != .directory && !loser.hasSameContent(as: winner)
    }

    /// Conflict versions both sides keep, plus those one side holds that the other has not
    /// seen yet. A version the other side has seen but no longer lists was resolved there.
    static func mergedConflicts(_ a: Item, _ b: Item) -> [ConflictVersion] {
        var result: [String: ConflictVersion] = [:]
        let aIDs = Set(a.conflicts.map(\.id)), bIDs = Set(b.conflicts.map(\.id))
        for c in a.conflicts where bIDs.contains(c.id) || !seen(c, by: b) { result[c.id] = c }
        for c in b.conflicts where aIDs.contains(c.id) || !seen(c, by: a) { result[c.id] = c }
        return result.values.sorted { $0.id < $1.id }
    }

    private static func seen(_ version: ConflictVersion, by item: Item) -> Bool {
        switch version.version.compare(to: item.version) {
        case .equal, .dominated: return true
        case .dominates, .concurrent: return false
        }
    }
}
