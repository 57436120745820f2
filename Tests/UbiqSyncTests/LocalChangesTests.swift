import Testing
import UbiqIndex
import UbiqModel
@testable import UbiqSync

@Suite struct LocalChangesTests {
    let me = DeviceID("ME")
    let hashA = ChunkHash(bytes: [UInt8](repeating: 1, count: 32))!
    let hashB = ChunkHash(bytes: [UInt8](repeating: 2, count: 32))!

    func entry(_ path: String, hash: ChunkHash, mtime: Int64, inode: UInt64 = 1) -> LocalEntry {
        LocalEntry(path: try! RelativePath(path), kind: .file, size: 10, mtime: mtime, executable: false, symlinkTarget: nil,
                     chunks: [ChunkRef(offset: 0, size: 10, hash: hash)],
                     stat: FileStat(size: 10, mtimeNs: mtime, ctimeNs: mtime, inode: inode))
    }

    func indexed(_ entry: LocalEntry, version: VersionVector) -> IndexedItem {
        IndexedItem(item: LocalChanges.item(entry, previous: nil, device: me).with(version: version), sequence: 1, stat: entry.stat)
    }

    @Test func aScanCoversEachOutermostPathOnce() throws {
        let paths = try ["a/b/c", "a b", "a", "x/y", "a/b", "x/y", "x/yz", "x/y/z", "q/r/s"].map { try RelativePath($0) }
        #expect(ContainerSync.outermost(paths).map(\.rawValue) == ["a", "a b", "q/r/s", "x/y", "x/yz"])
        #expect(ContainerSync.outermost([]).isEmpty)
    }

    /// A change of attributes alone is a new version of the same bytes; a scan that did not
    /// take the attributes (switched off, or a set past the limit) keeps the synced ones.
    @Test func attributesChangeTheItemAndAScanWithoutThemKeepsTheSyncedOnes() throws {
        let tags = try ExtendedAttributes([.init(name: "user.xdg.tags", value: Array("red".utf8))])
        var tagged = entry("a", hash: hashA, mtime: 1)
        tagged.attributes = tags
        let previous = indexed(tagged, version: VersionVector([me: 1]))
        #expect(previous.item.attributes == tags)

        var retagged = entry("a", hash: hashA, mtime: 1, inode: 2)
        retagged.attributes = .empty
        let removed = LocalChanges.plan(ScanOutcome(changed: [retagged], seen: [retagged.path]), existing: [retagged.path: previous],
                                        needs: [:], device: me, now: 9)
        #expect(removed.writes.map(\.item.attributes) == [.empty])
        #expect(removed.writes.first?.item.version == VersionVector([me: 2]))

        var unread = entry("a", hash: hashB, mtime: 3, inode: 3)
        unread.attributes = nil
        let edited = LocalChanges.plan(ScanOutcome(changed: [unread], seen: [unread.path]), existing: [unread.path: previous],
                                       needs: [:], device: me, now: 9)
        #expect(edited.writes.map(\.item.attributes) == [tags], "an edit keeps the attributes the scan did not read")
        unread.chunks = tagged.chunks
        unread.mtime = 1
        let same = LocalChanges.plan(ScanOutcome(changed: [unread], seen: [unread.path]), existing: [unread.path: previous],
                                     needs: [:], device: me, now: 9)
        #expect(same.writes.isEmpty && same.statOnly.count == 1)
    }

    /// A file written here while a need waits whose vector already counts a later change of
    /// this device (its own, merged on a peer) is a version that need does not cover, so
    /// applying the need cannot replace it unseen: the two meet as a conflict (seed 6400033).
    @Test func anEditWhileANeedWaitsIsNotCoveredByTheNeed() throws {
        let peer = DeviceID("PEER")
        let previous = indexed(entry("a", hash: hashA, mtime: 1), version: VersionVector([me: 5, peer: 3]))
        let need = LocalChanges.item(entry("a", hash: hashA, mtime: 2), previous: nil, device: peer)
            .with(version: VersionVector([me: 6, peer: 4]))
        let edited = entry("a", hash: hashB, mtime: 3, inode: 2)
        let plan = LocalChanges.plan(ScanOutcome(changed: [edited], seen: [edited.path]), existing: [edited.path: previous],
                                     needs: [edited.path: need], device: me, now: 9)
        let version = try #require(plan.writes.first?.item.version)
        #expect(version == VersionVector([me: 7, peer: 3]))
        #expect(version.compare(to: need.version) == .concurrent)
    }

    /// `ignore_permissions`: a scan without permissions keeps the synced ones, and a need whose
    /// permissions differ from the disk's is still settled by the file it put there.
    @Test func aScanWithoutPermissionsKeepsTheSyncedOnes() throws {
        var known = entry("a", hash: hashA, mtime: 1)
        known.permissions = Permissions(mode: 0o600, kind: .file)
        let previous = indexed(known, version: VersionVector([me: 1]))
        var unread = entry("a", hash: hashA, mtime: 1, inode: 2)
        unread.permissions = nil
        let same = LocalChanges.plan(ScanOutcome(changed: [unread], seen: [unread.path]), existing: [unread.path: previous],
                                     needs: [:], device: me, now: 9)
        #expect(same.writes.isEmpty && same.statOnly.count == 1)
        unread.chunks = [ChunkRef(offset: 0, size: 10, hash: hashB)]
        let edited = LocalChanges.plan(ScanOutcome(changed: [unread], seen: [unread.path]), existing: [unread.path: previous],
                                       needs: [:], device: me, now: 9)
        #expect(edited.writes.map(\.item.permissions.description) == ["0600"])
        var need = LocalChanges.item(unread, previous: nil, device: DeviceID("PEER"))
        need.permissions = Permissions(mode: 0o755, kind: .file)
        let settled = LocalChanges.plan(ScanOutcome(changed: [unread], seen: [unread.path]), existing: [unread.path: previous],
                                        needs: [unread.path: need], device: me, now: 9)
        #expect(settled.writes.map(\.settlesNeed) == [true])
    }

    /// `touch -d` travels: a new version with the new mtime that keeps the content's author
    /// and counter, so that it never makes a conflict version of the same bytes.
    @Test func anMtimeOnlyChangeIsAVersionThatKeepsTheContentsIdentity() throws {
        let before = entry("a", hash: hashA, mtime: 1)
        let after = entry("a", hash: hashA, mtime: 2)
        let author = DeviceID("OTHER")
        var previous = indexed(before, version: VersionVector([author: 2, me: 3]))
        previous.item.modifiedBy = author
        let plan = LocalChanges.plan(ScanOutcome(changed: [after], seen: [after.path]), existing: [after.path: previous],
                                     needs: [:], device: me, now: 9)
        #expect(plan.statOnly.isEmpty)
        let write = try #require(plan.writes.first)
        #expect(plan.writes.count == 1 && write.stat == after.stat)
        #expect(write.item.mtime == 2 && write.item.version == VersionVector([author: 2, me: 4]))
        #expect(write.item.modifiedBy == author && write.item.versionID == previous.item.versionID)
        #expect(write.item.hasSameContent(as: previous.item))
        // Nothing that travels changed (a new inode with the same bytes and mtime): only the fingerprint.
        let moved = entry("a", hash: hashA, mtime: 1, inode: 7)
        let same = LocalChanges.plan(ScanOutcome(changed: [moved], seen: [moved.path]), existing: [moved.path: previous],
                                     needs: [:], device: me, now: 9)
        #expect(same.writes.isEmpty && same.statOnly.map(\.1) == [moved.stat])
    }

    @Test func aContentChangeIncrementsOurCounterAndKeepsConflicts() {
        let before = entry("a", hash: hashA, mtime: 1)
        let after = entry("a", hash: hashB, mtime: 2)
        let plan = LocalChanges.plan(ScanOutcome(changed: [after], seen: [after.path]),
                                     existing: [after.path: indexed(before, version: VersionVector([DeviceID("PEER"): 4]))],
                                     needs: [:], device: me, now: 9)
        #expect(plan.writes.map(\.item.version) == [VersionVector([DeviceID("PEER"): 4, me: 1])])
    }

    @Test func aPathGoneFromDiskBecomesATombstone() {
        let before = entry("gone", hash: hashA, mtime: 1)
        let plan = LocalChanges.plan(ScanOutcome(changed: [], seen: []),
                                     existing: [before.path: indexed(before, version: VersionVector([me: 1]))],
                                     needs: [:], device: me, now: 9)
        #expect(plan.writes.count == 1)
        #expect(plan.writes[0].item.deleted)
        #expect(plan.writes[0].item.version == VersionVector([me: 2]))
        #expect(plan.writes[0].item.chunks.isEmpty)
    }

    @Test func anInterruptedApplyIsFinishedNotTakenForAnEdit() {
        let onDisk = entry("a", hash: hashB, mtime: 5)
        var need = LocalChanges.item(onDisk, previous: nil, device: DeviceID("PEER"))
        need.version = VersionVector([DeviceID("PEER"): 7])
        let before = entry("a", hash: hashA, mtime: 1)
        let plan = LocalChanges.plan(ScanOutcome(changed: [onDisk], seen: [onDisk.path]),
                                     existing: [onDisk.path: indexed(before, version: VersionVector([me: 1]))],
                                     needs: [onDisk.path: need], device: me, now: 9)
        #expect(plan.writes.map(\.item.version) == [need.version])
        #expect(plan.writes.first?.settlesNeed == true)
    }

    @Test func symlinksOutOfTheContainerAreNotAnnounced() {
        var link = entry("Documents/out", hash: hashA, mtime: 1)
        link.kind = .symlink
        link.chunks = []
        link.symlinkTarget = "../../etc"
        let plan = LocalChanges.plan(ScanOutcome(changed: [link], seen: [link.path]), existing: [:], needs: [:],
                                     device: me, now: 9)
        #expect(plan.writes.isEmpty)
        #expect(plan.refused == [link.path])
    }

    @Test func theApplyOrderPutsFoldersFirstAndDeletionsLastDeepestFirst() throws {
        func item(_ path: String, _ kind: ItemKind, deleted: Bool = false) -> Item {
            Item(path: try! RelativePath(path), kind: kind, deleted: deleted, version: VersionVector([me: 1]), modifiedBy: me)
        }
        let order = PullPlan.order([
            item("d/x", .file, deleted: true), item("d", .directory, deleted: true), item("n/f", .file),
            item("n", .directory), item("n/sub", .directory), item("d/y/z", .file, deleted: true),
        ]).map(\.path.rawValue)
        #expect(order == ["n", "n/sub", "n/f", "d/y/z", "d/x", "d"])
    }
}

extension Item {
    func with(version: VersionVector) -> Item {
        var copy = self
        copy.version = version
        return copy
    }
}
