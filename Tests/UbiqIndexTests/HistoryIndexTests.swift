import Foundation
import Testing
import UbiqIndex
import UbiqModel
import UbiqTestSupport

/// Kept versions are stored with everything needed to list and restore them, and outlive
/// the process.
@Suite struct HistoryIndexTests {
    let dir: TempDirectory
    let container = try! ContainerID("TEAMID.com.example.notes")
    let me = DeviceID("AAAA"), peer = DeviceID("BBBB")

    init() throws { dir = try TempDirectory() }

    func entry(_ path: String, _ counter: UInt64, keptAt: Int64, reason: HistoryEntry.Reason = .replaced) -> HistoryEntry {
        let hash = ChunkHash(bytes: [UInt8](repeating: UInt8(counter), count: 32))!
        let item = Item(path: try! RelativePath(path), kind: .file, size: 60, mtime: 5, permissions: Permissions(mode: 0o600, kind: .file),
                        chunks: [ChunkRef(offset: 0, size: 60, hash: hash)], version: VersionVector([me: counter]), modifiedBy: me)
        return HistoryEntry(item: item, name: "h-\(path.hashValue)-\(counter)", keptAt: keptAt, reason: reason, by: peer)
    }

    @Test func entriesRoundTripNewestFirstAndSurviveReopening() throws {
        let path = dir.appending("index.sqlite")
        var stored: [HistoryEntry] = []
        do {
            let index = try SyncIndex(path: path)
            try index.commit(container, [ItemWrite(item: entry("Documents/a.txt", 9, keptAt: 0).item, stat: nil)])
            stored = try index.addHistory(container, [entry("Documents/a.txt", 1, keptAt: 100), entry("Documents/b.txt", 2, keptAt: 150, reason: .deleted),
                                                      entry("Documents/a.txt", 3, keptAt: 200)])
            #expect(Set(stored.map(\.id)).count == 3 && stored.allSatisfy { $0.id > 0 })
        }
        let index = try SyncIndex(path: path)
        let a = try index.history(container, path: try RelativePath("Documents/a.txt"))
        #expect(a == [stored[2], stored[0]])
        #expect(try index.history(container).map(\.id) == [stored[2].id, stored[1].id, stored[0].id])
        #expect(try index.historyEntry(container, id: stored[1].id) == stored[1])
        #expect(try index.historySize(container) == (3, 180))
        try index.removeHistory(container, ids: [stored[0].id])
        #expect(try index.history(container, path: try RelativePath("Documents/a.txt")) == [stored[2]])
        #expect(try index.historyEntry(container, id: stored[0].id) == nil)
    }
}
