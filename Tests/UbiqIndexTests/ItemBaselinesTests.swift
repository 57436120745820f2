import Testing
import UbiqIndex
import UbiqModel

struct ItemBaselinesTests {
    private func baseline(_ size: UInt64) -> ItemBaseline {
        ItemBaseline(stat: FileStat(size: size, mtimeNs: 1, ctimeNs: 2, inode: size), deleted: false, downloaded: true)
    }

    /// Byte order, as SQLite's: `a.txt` (0x2E) before `a/b` (0x2F), and the two spellings of
    /// é (NFC, then NFD) are two paths.
    @Test func everyPathIsFoundByBytesWhateverOrderItCameIn() throws {
        let names = ["a", "a/b", "a.txt", "a-1/c", "a/b/c", "\u{E9}", "e\u{301}", "z", "B"]
        let rows = try names.enumerated().map { (try RelativePath($0.element), baseline(UInt64($0.offset))) }
        for table in [ItemBaselines(rows), ItemBaselines(rows.reversed()), ItemBaselines(rows.shuffled())] {
            #expect(table.paths.map(\.rawValue) == ["B", "a", "a-1/c", "a.txt", "a/b", "a/b/c", "e\u{301}", "z", "\u{E9}"])
            for (offset, name) in names.enumerated() {
                #expect(table[try RelativePath(name)] == baseline(UInt64(offset)), "\(name)")
            }
            #expect(table[try RelativePath("a/c")] == nil)
            #expect(table[try RelativePath("0")] == nil)
            #expect(table[try RelativePath("zz")] == nil)
            #expect(table.paths(atOrInside: try RelativePath("a")).map(\.rawValue) == ["a", "a/b", "a/b/c"])
            #expect(table.paths(atOrInside: try RelativePath("a/b/c")).map(\.rawValue) == ["a/b/c"])
            #expect(table.paths(atOrInside: try RelativePath("c")).isEmpty)
        }
    }

    @Test func aPathGivenTwiceKeepsItsLastBaseline() throws {
        let path = try RelativePath("x")
        let table = ItemBaselines([(path, baseline(1)), (try RelativePath("a"), baseline(2)), (path, baseline(3))])
        #expect(table.count == 2)
        #expect(table[path] == baseline(3))
    }

    /// The scan's seen set keeps these strings, so a rescan holds one copy of every name.
    @Test func ownKeyIsTheTablesOwnString() throws {
        let stored = try RelativePath("Documents/a long enough name to live on the heap.txt")
        let table = ItemBaselines([(stored, baseline(1))])
        let asked = try RelativePath("Documents/a long enough name" + " to live on the heap.txt")
        let own = try #require(table.ownKey(asked))
        #expect(own.rawValue.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
                == stored.rawValue.utf8.withContiguousStorageIfAvailable { $0.baseAddress })
        #expect(table.ownKey(try RelativePath("Documents")) == nil)
    }
}
