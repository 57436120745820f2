import Testing
import UbiqModel

/// A change of mtime alone is a version that moves no content and never makes a conflict
/// version (issue 20): when it is concurrent with a change of the bytes, the bytes win.
@Suite struct MetadataChangeTests {
    let a = DeviceID("AAAA"), b = DeviceID("BBBB"), c = DeviceID("CCCC")

    func item(_ version: [DeviceID: UInt64], by device: DeviceID, mtime: Int64, byte: UInt8, deleted: Bool = false) -> Item {
        let hash = ChunkHash(bytes: [UInt8](repeating: byte, count: 32))!
        return Item(path: try! RelativePath("Documents/note.txt"), kind: .file, deleted: deleted, size: deleted ? 0 : 10,
                    mtime: mtime, chunks: deleted ? [] : [ChunkRef(offset: 0, size: 10, hash: hash)],
                    version: VersionVector(version), modifiedBy: device)
    }

    func touched(_ item: Item, by device: DeviceID, mtime: Int64) -> Item {
        var next = item.changedMetadata(by: device)
        next.mtime = mtime
        return next
    }

    /// Both sides reconcile to `expected` content, no conflict version, and the side whose
    /// disk holds other bytes or another mtime is told to change it.
    func expectMerge(_ one: Item, _ other: Item, keeps winner: Item) {
        for (local, remote) in [(one, other), (other, one)] {
            switch Reconciliation.reconcile(local: local, remote: remote) {
            case .merge(let merged, let change):
                #expect(merged.matchesOnDisk(winner))
                #expect(merged.conflicts.isEmpty)
                #expect(merged.version == one.version.merged(with: other.version))
                #expect(change == !local.matchesOnDisk(winner))
            default:
                Issue.record("expected a merge of concurrent versions")
            }
        }
    }

    @Test func aTouchKeepsTheContentsIdentity() {
        let original = item([a: 1], by: a, mtime: 100, byte: 1)
        let touchedByB = touched(original, by: b, mtime: 500)
        #expect(touchedByB.version == VersionVector([a: 1, b: 1]))
        #expect(touchedByB.modifiedBy == a)
        #expect(touchedByB.versionID == original.versionID)
        let touchedByA = touched(original, by: a, mtime: 500)
        #expect(touchedByA.version == VersionVector([a: 2]))
        #expect(touchedByA.versionID == original.versionID)
        #expect(Reconciliation.reconcile(local: original, remote: touchedByB) == .applyRemote(touchedByB))
    }

    @Test func anEditBeatsAConcurrentLaterTouch() {
        let original = item([a: 1], by: a, mtime: 100, byte: 1)
        // The author touches its own file while another device edits the bytes, earlier.
        let touch = touched(original, by: a, mtime: 900)
        let edit = item([a: 1, b: 1], by: b, mtime: 200, byte: 2)
        expectMerge(touch, edit, keeps: edit)
        // A third device touches while the author edits.
        let edit2 = original.changedContent(by: a)
        var editedBytes = edit2
        editedBytes.chunks = edit.chunks
        editedBytes.mtime = 150
        expectMerge(touched(original, by: c, mtime: 900), editedBytes, keeps: editedBytes)
    }

    @Test func aDeletionBeatsAConcurrentTouch() {
        let original = item([a: 1], by: a, mtime: 100, byte: 1)
        var deletion = original.changedContent(by: b)
        deletion.deleted = true
        deletion.chunks = []
        deletion.size = 0
        expectMerge(touched(original, by: c, mtime: 900), deletion, keeps: deletion)
    }

    @Test func twoTouchesKeepTheLaterMtime() {
        let original = item([a: 1], by: a, mtime: 100, byte: 1)
        let early = touched(original, by: b, mtime: 300), late = touched(original, by: c, mtime: 700)
        expectMerge(early, late, keeps: late)
    }

    @Test func aTouchIsNotKeptAsAConflictVersionOfItsOwnBytes() {
        // Concurrent edits of the bytes still keep the loser; a touch of either is not a third version.
        let editA = item([a: 2], by: a, mtime: 200, byte: 2)
        let editB = item([a: 1, b: 1], by: b, mtime: 300, byte: 3)
        guard case .merge(let merged, _) = Reconciliation.reconcile(local: editA, remote: editB) else {
            Issue.record("expected a merge"); return
        }
        #expect(merged.conflicts.map(\.id) == [editA.versionID])
        let touchOfLoser = touched(editA, by: c, mtime: 999)
        guard case .merge(let again, _) = Reconciliation.reconcile(local: merged, remote: touchOfLoser) else {
            Issue.record("expected a merge"); return
        }
        // Still the two versions of bytes, one current and one kept, whichever the later mtime puts first.
        let versions = Set([again.versionID] + again.conflicts.map(\.id))
        #expect(versions == [editA.versionID, editB.versionID])
        #expect(again.conflicts.count == 1)
    }

    /// Should two devices ever hold one vector with two mtimes (a folder's time set apart;
    /// found by the simulator, seed 661779082), both take the later one.
    @Test func oneVectorWithTwoMtimesConvergesOnTheLater() {
        var early = item([a: 3, b: 2], by: a, mtime: 100, byte: 1), late = early
        late.mtime = 200
        guard case .merge(let atEarly, let change) = Reconciliation.reconcile(local: early, remote: late) else {
            Issue.record("expected a merge"); return
        }
        #expect(atEarly.mtime == 200 && change)
        #expect(Reconciliation.reconcile(local: late, remote: early) == .merge(merged: late, contentFromRemote: false)
                || Reconciliation.reconcile(local: late, remote: early) == .keepLocal)
        early.deleted = true
        late.deleted = true
        #expect(Reconciliation.reconcile(local: early, remote: late) == .keepLocal)
    }
}
