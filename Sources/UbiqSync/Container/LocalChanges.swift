import UbiqIndex
import UbiqModel

/// Turns what a scan found into index writes: a new version where content changed, a new
/// version that keeps the content's identity where only the mtime moved, only a new
/// fingerprint where nothing that travels changed, a tombstone where a path disappeared.
enum LocalChanges {
    struct Plan {
        var writes: [ItemWrite] = []
        var statOnly: [(RelativePath, FileStat)] = []
        /// Symlinks whose target leads out of the container: never announced.
        var refused: [RelativePath] = []
    }

    /// `applying`: folders the puller is changing inside, whose mtime it puts back when done.
    static func plan(
        _ outcome: ScanOutcome, existing: [RelativePath: IndexedItem], needs: [RelativePath: Item],
        device: DeviceID, now: Int64, applying: (RelativePath) -> Bool = { _ in false }
    ) -> Plan {
        var plan = Plan()
        for entry in outcome.changed {
            if entry.kind == .symlink, !SymlinkTarget.staysInside(linkPath: entry.path.rawValue, target: entry.symlinkTarget ?? "") {
                plan.refused.append(entry.path)
                continue
            }
            let previous = existing[entry.path]
            let scanned = item(entry, previous: previous?.item, device: device, past: needs[entry.path]?.version)
            if let need = needs[entry.path], need.matchesOnDisk(item(entry, previous: need, device: device)) {
                // An apply that was interrupted after its rename: finish it.
                plan.writes.append(ItemWrite(item: need, stat: entry.stat, settlesNeed: true))
            } else if let previous, previous.item.matchesOnDisk(scanned) {
                plan.statOnly.append((entry.path, entry.stat))
            } else if let previous, previous.item.hasSameContent(as: scanned) {
                // Not the puller's own work in a folder: it puts that folder's mtime back.
                if entry.kind == .directory && applying(entry.path) { continue }
                var touched = previous.item.changedMetadata(by: device)
                touched.mtime = scanned.mtime
                plan.writes.append(ItemWrite(item: touched, stat: entry.stat))
            } else {
                plan.writes.append(ItemWrite(item: scanned, stat: entry.stat))
            }
        }
        for (path, indexed) in existing where !indexed.item.deleted && !outcome.seen.contains(path) {
            plan.writes.append(ItemWrite(item: tombstone(of: indexed.item, by: device, now: now), stat: nil))
        }
        plan.writes.sort { $0.item.path < $1.item.path }
        return plan
    }

    /// `item` deleted by `device` at `now`: a new version with no content.
    static func tombstone(of item: Item, by device: DeviceID, now: Int64) -> Item {
        var tombstone = item.changedContent(by: device)
        tombstone.deleted = true
        tombstone.size = 0
        tombstone.chunks = []
        tombstone.members = []
        tombstone.symlinkTarget = nil
        tombstone.mtime = now
        return tombstone
    }

    /// What the scan found as a new version; what it did not read (permissions, attributes)
    /// is `previous`'s. `past`: the version a need waits to apply at the path, which the new
    /// version must not be covered by, or the apply would replace it unseen.
    static func item(_ entry: LocalEntry, previous: Item?, device: DeviceID, past: VersionVector? = nil) -> Item {
        Item(
            path: entry.path, kind: entry.kind, size: entry.kind.hasBytes ? entry.size : 0, mtime: entry.mtime,
            permissions: entry.permissions ?? previous?.permissions, attributes: entry.attributes ?? previous?.attributes ?? .empty,
            symlinkTarget: entry.symlinkTarget, chunks: entry.chunks, members: entry.members,
            version: (previous?.version ?? .empty).incremented(by: device, past: past), modifiedBy: device,
            conflicts: previous?.conflicts ?? [])
    }
}
