import Testing
import UbiqIndex
import UbiqModel
@testable import UbiqSync

/// A receive-only container's held-back changes: what a scan holds, keeps and lets go.
@Suite struct HeldChangesTests {
    let me = DeviceID("ME")
    let hash = ChunkHash(bytes: [UInt8](repeating: 1, count: 32))!

    func entry(_ path: String, kind: ItemKind = .file, inode: UInt64 = 1) -> LocalEntry {
        LocalEntry(path: try! RelativePath(path), kind: kind, size: kind == .file ? 10 : 0, mtime: Int64(inode),
                   executable: false, symlinkTarget: nil,
                   chunks: kind == .file ? [ChunkRef(offset: 0, size: 10, hash: hash)] : [],
                   stat: FileStat(size: 10, mtimeNs: Int64(inode), ctimeNs: Int64(inode), inode: inode))
    }

    func change(_ entry: LocalEntry) -> HeldChanges.Change {
        HeldChanges.Change(found: LocalChanges.item(entry, previous: nil, device: me), stat: entry.stat)
    }

    @Test func aScanKeepsWhatItSawUnchangedAndForgetsTheRestUnderItsRoots() throws {
        let (a, b, c) = (try RelativePath("docs/a"), try RelativePath("docs/b"), try RelativePath("other/c"))
        var held = HeldChanges()
        held.scanned([nil], held: [a: change(entry("docs/a")), b: change(entry("docs/b")), c: change(entry("other/c"))], unchanged: [])
        #expect(held.changes.count == 3 && held.stats.count == 3)

        // A scan of docs/ saw a as held and found b as the account has it: b goes, c stays.
        held.scanned([try RelativePath("docs")], held: [:], unchanged: [a])
        #expect(Set(held.changes.keys) == [a, c])
        // Changed again: the new state replaces the old.
        held.scanned([a], held: [a: change(entry("docs/a", inode: 7))], unchanged: [])
        #expect(held[a]?.stat?.inode == 7)
        // Deleted here: held with nothing found, and no stat for the scanner.
        held.scanned([a], held: [a: HeldChanges.Change(found: nil, stat: nil)], unchanged: [])
        #expect(held[a] != nil && held[a]?.found == nil && held.stats[a] == nil)
        // An index write there (a peer's version applied, a revert) ends it.
        held.settled([a, c])
        #expect(held.isEmpty)
    }

    /// What settles a need is recorded, a folder's own metadata is only a new fingerprint, and
    /// every other change made here is held back.
    @Test func aReceiveOnlyScanHoldsBackOnlyChangesMadeHere() throws {
        let folder = LocalChanges.item(entry("docs", kind: .directory), previous: nil, device: me)
        let edited = entry("docs/a", inode: 2)
        var gone = LocalChanges.item(entry("docs/b"), previous: nil, device: me)
        gone.deleted = true
        let finished = LocalChanges.item(entry("docs/c", inode: 3), previous: nil, device: DeviceID("PEER"))
        let writes = [
            ItemWrite(item: folder, stat: entry("docs", kind: .directory, inode: 4).stat),
            ItemWrite(item: LocalChanges.item(edited, previous: nil, device: me), stat: edited.stat),
            ItemWrite(item: gone, stat: nil),
            ItemWrite(item: finished, stat: entry("docs/c", inode: 3).stat, settlesNeed: true),
        ]
        let split = ContainerSync.holdBack(writes, previous: [folder.path: folder])
        #expect(split.kept.map(\.item.path.rawValue) == ["docs/c"])
        #expect(split.statOnly.map(\.0.rawValue) == ["docs"])
        #expect(Set(split.held.keys.map(\.rawValue)) == ["docs/a", "docs/b"])
        #expect(split.held[edited.path]?.found?.chunks.map(\.hash) == [hash])
        #expect(split.held[gone.path]?.found == nil)
        // A folder made here is held back like a file.
        let made = ContainerSync.holdBack([writes[0]], previous: [:])
        #expect(made.kept.isEmpty && made.held[folder.path]?.found?.kind == .directory)
    }
}
