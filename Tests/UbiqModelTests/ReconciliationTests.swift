import Testing
import UbiqModel

@Suite struct ReconciliationTests {
    let a = DeviceID("AAAA"), b = DeviceID("BBBB")

    func item(_ version: [DeviceID: UInt64], by device: DeviceID, mtime: Int64, byte: UInt8, deleted: Bool = false) -> Item {
        let hash = ChunkHash(bytes: [UInt8](repeating: byte, count: 32))!
        return Item(path: try! RelativePath("Documents/note.txt"), kind: .file, deleted: deleted, size: deleted ? 0 : 10,
                    mtime: mtime, chunks: deleted ? [] : [ChunkRef(offset: 0, size: 10, hash: hash)],
                    version: VersionVector(version), modifiedBy: device)
    }

    @Test func causallyNewerRemoteIsApplied() {
        let local = item([a: 1], by: a, mtime: 100, byte: 1)
        let remote = item([a: 1, b: 1], by: b, mtime: 50, byte: 2)
        #expect(Reconciliation.reconcile(local: local, remote: remote) == .applyRemote(remote))
        #expect(Reconciliation.reconcile(local: remote, remote: local) == .keepLocal)
    }

    @Test func concurrentEditsConvergeOnBothSides() throws {
        let onA = item([a: 2], by: a, mtime: 200, byte: 1)
        let onB = item([a: 1, b: 1], by: b, mtime: 300, byte: 2)
        guard case .merge(let atA, let replaceAtA) = Reconciliation.reconcile(local: onA, remote: onB),
              case .merge(let atB, let replaceAtB) = Reconciliation.reconcile(local: onB, remote: onA)
        else { Issue.record("expected a merge"); return }
        #expect(atA == atB)
        #expect(replaceAtA && !replaceAtB)
        #expect(atA.hasSameContent(as: onB))
        #expect(atA.version == VersionVector([a: 2, b: 1]))
        #expect(atA.conflicts.map(\.id) == [onA.versionID])
        #expect(atA.conflicts.first?.chunks == onA.chunks)
    }

    @Test func tiesOnMtimeGoToTheLargerDevice() {
        let onA = item([a: 1], by: a, mtime: 100, byte: 1)
        let onB = item([b: 1], by: b, mtime: 100, byte: 2)
        #expect(Reconciliation.winsConflict(onB, over: onA))
        #expect(!Reconciliation.winsConflict(onA, over: onB))
    }

    @Test func modificationBeatsDeletion() {
        let deleted = item([a: 2], by: a, mtime: 900, byte: 0, deleted: true)
        let edited = item([a: 1, b: 1], by: b, mtime: 100, byte: 2)
        guard case .merge(let merged, _) = Reconciliation.reconcile(local: deleted, remote: edited) else {
            Issue.record("expected a merge"); return
        }
        #expect(!merged.deleted)
        #expect(merged.conflicts.isEmpty)
    }

    @Test func aResolvedConflictStaysResolved() {
        let onA = item([a: 2], by: a, mtime: 200, byte: 1)
        let onB = item([a: 1, b: 1], by: b, mtime: 300, byte: 2)
        guard case .merge(let merged, _) = Reconciliation.reconcile(local: onA, remote: onB) else { return }
        var resolved = merged
        resolved.conflicts = []
        resolved.version = merged.version.incremented(by: a)
        #expect(Reconciliation.reconcile(local: merged, remote: resolved) == .applyRemote(resolved))
    }

    @Test func concurrentResolveAndEditKeepsOnlyUnseenVersions() {
        let onA = item([a: 2], by: a, mtime: 200, byte: 1)
        let onB = item([a: 1, b: 1], by: b, mtime: 300, byte: 2)
        guard case .merge(let merged, _) = Reconciliation.reconcile(local: onA, remote: onB) else { return }
        var resolvedOnA = merged
        resolvedOnA.conflicts = []
        resolvedOnA.version = merged.version.incremented(by: a)
        var editedOnB = merged
        editedOnB.version = merged.version.incremented(by: b)
        editedOnB.mtime = 400
        editedOnB.chunks = item([b: 9], by: b, mtime: 0, byte: 3).chunks
        guard case .merge(let final, _) = Reconciliation.reconcile(local: resolvedOnA, remote: editedOnB) else {
            Issue.record("expected a merge"); return
        }
        // The old conflict version was seen and dropped by A; only the new loser is kept.
        #expect(!final.conflicts.contains { $0.id == onA.versionID })
        #expect(final.conflicts.count == 1)
    }
}
