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

    /// A package's folder keeps its mtime when a file inside changes: the later change inside
    /// decides, and the losing package is kept with its members, whichever device merges.
    @Test func concurrentPackagesGoToTheLaterChangeInsideAndTheLoserKeepsItsMembers() throws {
        func package(_ version: [DeviceID: UInt64], by device: DeviceID, fileMtime: Int64, byte: UInt8) throws -> Item {
            let hash = ChunkHash(bytes: [UInt8](repeating: byte, count: 32))!
            let content = try PackageContent(files: [
                (PackageMember(path: try RelativePath("Index.xml"), kind: .file, size: 10, mtime: fileMtime), [ChunkRef(offset: 0, size: 10, hash: hash)]),
            ])
            return Item(path: try RelativePath("Documents/Report.pages"), kind: .package, size: 10, mtime: 100, chunks: content.chunks,
                        members: content.members, version: VersionVector(version), modifiedBy: device)
        }
        // B's device ID is the larger, its change inside the earlier: A's later change wins.
        let onA = try package([a: 2], by: a, fileMtime: 500, byte: 1)
        let onB = try package([a: 1, b: 1], by: b, fileMtime: 300, byte: 2)
        guard case .merge(let atA, _) = Reconciliation.reconcile(local: onA, remote: onB),
              case .merge(let atB, _) = Reconciliation.reconcile(local: onB, remote: onA)
        else { Issue.record("expected a merge"); return }
        #expect(atA == atB)
        #expect(atA.hasSameContent(as: onA))
        #expect(atA.conflicts.map(\.members) == [onB.members])
        // A third, concurrent version merged in later still sees the loser whole.
        let onC = try package([a: 1, DeviceID("CCCC"): 1], by: DeviceID("CCCC"), fileMtime: 200, byte: 3)
        guard case .merge(let all, _) = Reconciliation.reconcile(local: atA, remote: onC) else { Issue.record("expected a merge"); return }
        #expect(all.hasSameContent(as: onA))
        #expect(Set(all.conflicts.map(\.members)) == [onB.members, onC.members])
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
        // The old conflict version was seen and dropped by A, and B's edit replaced the
        // content A kept: nothing is left to keep.
        #expect(final.conflicts.isEmpty)
        #expect(final.chunks == editedOnB.chunks)
    }

    /// The partition test's seed 7: A renames a file over a path while offline; B wrote there;
    /// C, having seen B's version, deleted it. Whoever hears of them in whatever order ends
    /// with A's version current and nothing else kept: B's version was superseded by C.
    @Test func aVersionAlreadyDeletedElsewhereIsNotBroughtBackByAMergeOrder() throws {
        let c = DeviceID("CCCC")
        let onA = item([a: 1], by: a, mtime: 100, byte: 1)
        let onB = item([b: 1], by: b, mtime: 200, byte: 2)
        let onC = item([b: 1, c: 1], by: c, mtime: 300, byte: 0, deleted: true)
        func merge(_ local: Item, _ remote: Item) -> Item {
            switch Reconciliation.reconcile(local: local, remote: remote) {
            case .keepLocal: local
            case .applyRemote(let item): item
            case .merge(let merged, _): merged
            }
        }
        let orders = [[onA, onB, onC], [onA, onC, onB], [onB, onA, onC], [onC, onA, onB], [onB, onC, onA], [onC, onB, onA]]
        var results: [Item] = []
        for order in orders {
            results.append(merge(merge(order[0], order[1]), order[2]))
            results.append(merge(order[0], merge(order[1], order[2])))
        }
        for result in results {
            #expect(result.hasSameContent(as: onA), "\(result)")
            #expect(result.conflicts.isEmpty)
            #expect(result.version == VersionVector([a: 1, b: 1, c: 1]))
        }
    }

    /// The partition test's seed 6: A kept its own earlier content as a conflict version and
    /// then deleted the current file; B edited concurrently. A's old content is not made
    /// current under A's later counter: it stays the conflict version it was, on both sides.
    @Test func aConflictVersionWhoseAuthorMovedOnIsNotMadeCurrent() {
        let c = DeviceID("CCCC")
        var onA = item([a: 2, c: 2], by: a, mtime: 500, byte: 0, deleted: true)
        onA.conflicts = [ConflictVersion(of: item([a: 1], by: a, mtime: 400, byte: 1))]
        let onB = item([b: 1, c: 2], by: b, mtime: 300, byte: 2)
        guard case .merge(let atA, _) = Reconciliation.reconcile(local: onA, remote: onB),
              case .merge(let atB, _) = Reconciliation.reconcile(local: onB, remote: onA)
        else { Issue.record("expected a merge"); return }
        #expect(atA == atB)
        #expect(atA.hasSameContent(as: onB))
        #expect(atA.conflicts.map(\.id) == ["AAAA-1"])
        #expect(atA.versionID == onB.versionID)
    }

    /// Three concurrent edits: every merge order keeps the same current version and the
    /// same two conflict versions.
    @Test func threeConcurrentEditsConvergeInAnyOrder() {
        let c = DeviceID("CCCC")
        let edits = [item([a: 1], by: a, mtime: 100, byte: 1), item([b: 1], by: b, mtime: 300, byte: 2),
                     item([c: 1], by: c, mtime: 200, byte: 3)]
        func merge(_ local: Item, _ remote: Item) -> Item {
            guard case .merge(let merged, _) = Reconciliation.reconcile(local: local, remote: remote) else { return local }
            return merged
        }
        let results = [merge(merge(edits[0], edits[1]), edits[2]), merge(edits[2], merge(edits[1], edits[0])),
                       merge(merge(edits[2], edits[0]), edits[1])]
        for result in results {
            #expect(result == results[0])
            #expect(result.hasSameContent(as: edits[1]))
            #expect(Set(result.conflicts.map(\.id)) == [edits[0].versionID, edits[2].versionID])
        }
    }

    /// A version kept as a conflict that wins the merge when nothing else is eligible (its
    /// author's later change was seen and dropped) stays the same version: its identity is
    /// its author's counter when it was made, not the merged vector's, so a device that kept
    /// it as a conflict version knows it again (seed 6400015: a promoted conflict version was
    /// taken for one its own device had already seen, and dropped).
    @Test func aWinnerKeepsItsIdentityUnderTheMergedVector() throws {
        let c = DeviceID("CCCC"), d = DeviceID("DDDD")
        let kept = item([b: 4], by: b, mtime: 100, byte: 1)
        let local = item([b: 4, c: 1, d: 1], by: b, mtime: 100, byte: 1)
        var remote = item([b: 5, d: 1], by: d, mtime: 300, byte: 2)
        remote.conflicts = [ConflictVersion(of: kept)]
        guard case .merge(let merged, _) = Reconciliation.reconcile(local: local, remote: remote) else {
            Issue.record("expected a merge")
            return
        }
        #expect(merged.hasSameContent(as: kept))
        #expect(merged.version == VersionVector([b: 5, c: 1, d: 1]))
        #expect(merged.versionID == kept.versionID)
    }
}
