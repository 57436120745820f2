import Foundation
import GRDB
import Testing
@testable import UbiqIndex
import UbiqModel
import UbiqTestSupport

/// Rows the index cannot have written (a damaged file, a bug, an edit by hand) are refused
/// as corrupt, never read as something else. Each test writes its bad row with raw SQL
/// through a second connection to the same file.
@Suite struct SyncIndexCorruptRowTests {
    let dir: TempDirectory
    let index: SyncIndex
    let container = try! ContainerID("TEAMID.com.example.notes")
    let me = DeviceID("AAAA")
    let hash = ChunkHash(bytes: [UInt8](repeating: 7, count: 32))!

    init() throws {
        dir = try TempDirectory()
        index = try SyncIndex(path: dir.appending("index.sqlite"))
    }

    func file(_ path: String) -> Item {
        Item(path: try! RelativePath(path), kind: .file, size: 100, mtime: 1,
             chunks: [ChunkRef(offset: 0, size: 60, hash: hash), ChunkRef(offset: 60, size: 40, hash: hash)],
             version: VersionVector([me: 1]), modifiedBy: me)
    }

    func rawSQL(_ sql: String, _ arguments: StatementArguments = []) throws {
        let queue = try DatabaseQueue(path: dir.appending("index.sqlite"))
        try queue.write { try $0.execute(sql: sql, arguments: arguments) }
        try queue.close()
    }

    func expectCorrupt(_ mentioning: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("read a corrupt row", sourceLocation: sourceLocation)
        } catch let error as IndexError {
            #expect(error.code == .corrupt, sourceLocation: sourceLocation)
            #expect(error.reason.contains(mentioning), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not an IndexError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func anItemOfAnUnknownKindIsRefusedNotReadAsAFile() throws {
        let item = file("Documents/a.txt")
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        try rawSQL("UPDATE item SET kind = 7")
        expectCorrupt("unknown item kind 7") { _ = try index.item(container, item.path) }
        expectCorrupt("unknown item kind 7") { _ = try index.items(container, at: [item.path]) }
        expectCorrupt("unknown item kind 7") { _ = try index.items(container, under: nil) }
        expectCorrupt("unknown item kind 7") { _ = try index.items(container, after: 0, limit: 10) }
        expectCorrupt("unknown item kind 7") { _ = try index.statistics(container) }
    }

    /// Needs and conflict versions keep their kind in a blob; a bad kind byte there is refused too.
    @Test func aBlobWithAnUnknownKindIsRefused() throws {
        let link = Item(path: try RelativePath("l"), kind: .symlink, symlinkTarget: "x", version: VersionVector([me: 1]), modifiedBy: me)
        var bytes = [UInt8](IndexBinary.encode(link))
        #expect(bytes[3] == UInt8(ItemKind.symlink.code))  // format, path length, "l", kind
        bytes[3] = 3
        expectCorrupt("unknown item kind 3") { _ = try IndexBinary.decodeItem(Data(bytes)) }
    }

    /// A chunk row whose file is neither `i:` and a valid path nor `v:` and a name is left out
    /// of the places a chunk can be read: the puller then asks a peer for it.
    @Test func aChunkOfAnUnknownFileIsSkippedNotMisread() throws {
        let item = file("Documents/a.txt")
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        for bad in ["Documents/a.txt", "x:Documents/a.txt", "i:/etc/passwd", "i:", "v:", ""] {
            try rawSQL("INSERT INTO chunk (hash, container, file, offset, size) SELECT hash, container, ?, 0, 60 FROM chunk LIMIT 1", [bad])
        }
        let locations = try index.locations(of: hash)
        #expect(locations.map(\.file) == [.item(item.path), .item(item.path)])
        #expect(Set(locations.map(\.offset)) == [0, 60])
    }

    @Test func storedChunkFilesReadBackAsTheyWereWritten() throws {
        let files: [ChunkLocation.File] = [.item(try RelativePath("Documents/é ü.txt")), .item(try RelativePath("v:odd")), .version("a.txt~1")]
        for file in files {
            #expect(try ChunkLocation.File(stored: file.stored) == file)
        }
        #expect(ChunkLocation.File.item(try RelativePath("a")).stored == "i:a")
        #expect(ChunkLocation.File.version("b").stored == "v:b")
        #expect(throws: IndexError.self) { try ChunkLocation.File(stored: "a") }
    }
}
