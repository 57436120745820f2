import Foundation
import UbiqIndex
import UbiqModel

/// A receive-only container: its peers' changes are applied, its own are held back (kept out
/// of the index, so never announced) and listed, until a revert puts the account's versions
/// back. A peer's newer version of a path changed here replaces the change, which goes to
/// the history like any replaced version.
extension ContainerSync {
    /// Splits a scan's writes: what settles a need is recorded; a folder whose own metadata
    /// changed only gets its new fingerprint (its mtime moves with every file made in it);
    /// everything else this device changed is held back.
    static func holdBack(_ writes: [ItemWrite], previous: [RelativePath: Item])
        -> (kept: [ItemWrite], statOnly: [(RelativePath, FileStat)], held: [RelativePath: HeldChanges.Change]) {
        var kept: [ItemWrite] = []
        var statOnly: [(RelativePath, FileStat)] = []
        var held: [RelativePath: HeldChanges.Change] = [:]
        for write in writes {
            let path = write.item.path
            if write.settlesNeed {
                kept.append(write)
            } else if write.item.kind == .directory, !write.item.deleted, let before = previous[path], before.kind == .directory, !before.deleted {
                if let stat = write.stat { statOnly.append((path, stat)) }
            } else {
                held[path] = HeldChanges.Change(found: write.item.deleted ? nil : write.item, stat: write.stat)
            }
        }
        return (kept, statOnly, held)
    }

    /// The changes held back here, each with the account's version of its path (nil where
    /// the account has none: made here).
    func heldDifferences() throws -> [Difference] {
        let changes = state.held.changes
        guard !changes.isEmpty else { return [] }
        let account = try index.items(id, at: Array(changes.keys))
        return changes.map { path, change in
            Difference(path: path, local: change.found, peer: account[path].flatMap { $0.item.deleted ? nil : $0.item }, changedHere: true)
        }
    }

    /// Puts the account's version back at every path changed here: a file or folder made here
    /// goes (a file into the history), one changed or deleted here is assembled again (from
    /// chunks here, or from peers) with the changed file kept in the history. Each path under
    /// a write lease; nothing is announced, since the account already has these versions.
    public func revertHeldChanges() async throws -> RevertOutcome {
        guard mode == .receiveOnly else { return RevertOutcome() }
        _ = try await leasedScan([nil])
        let paths = Array(state.held.changes.keys)
        let account = try index.items(id, at: paths)
        let madeHere = paths.filter { account[$0].map(\.item.deleted) ?? true }
        let changedHere = paths.filter { account[$0].map { !$0.item.deleted } ?? false }
        var outcome = RevertOutcome()
        // What was made here goes inside out; what the account has comes back outside in.
        for path in madeHere.sorted(by: >) + changedHere.sorted() {
            let claim = FileLeases.Claim(container: id, path: path, access: .write)
            do {
                let done: Void? = try await leased([claim], for: .agent("revert"), wait: Self.leaseWait) { try await revertLeased(path) }
                if done == nil {
                    outcome.failed[path] = "a client holds a write lease there; revert again when it is done"
                } else {
                    outcome.reverted.append(path)
                }
            } catch {
                outcome.failed[path] = "\(error)"
            }
        }
        logger.info("reverted the changes made here", metadata: ["paths": "\(outcome.reverted.count)", "failed": "\(outcome.failed.count)"])
        return outcome
    }

    private func revertLeased(_ path: RelativePath) async throws {
        try scan(under: path)
        guard let change = state.held[path] else { return }
        if let account = try index.item(id, path), !account.item.deleted {
            try await materialize(account.item, local: account, asked: [path])
            return
        }
        let kept = try change.onDisk.map { $0.item.kind == .file ? try removeKeeping($0, reason: .deleted, by: device) : false } ?? false
        if !kept, disk.stat(path) != nil { try disk.remove(path) }
        state.heldChangeUndone(path)
    }
}

extension HeldChanges.Change {
    /// What a change held back is on disk, as the index would describe it.
    var onDisk: IndexedItem? {
        found.map { IndexedItem(item: $0, sequence: 0, stat: stat) }
    }
}

/// What `ubiq revert` did: the paths that hold the account's version again, and those that
/// could not be put back, with why.
public struct RevertOutcome: Sendable {
    public var reverted: [RelativePath] = []
    public var failed: [RelativePath: String] = [:]
}
