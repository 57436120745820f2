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

    /// A row of before permissions travelled (NULL) is read as its executable column said;
    /// a number no mode can be is refused.
    @Test func permissionsOfBeforeAreTheExecutableBitsAndImpossibleOnesAreRefused() throws {
        var item = file("Documents/key")
        item.permissions = Permissions(mode: 0o600, kind: .file)
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        #expect(try index.item(container, item.path)?.item.permissions.description == "0600")
        try rawSQL("UPDATE item SET permissions = NULL, executable = 1")
        #expect(try index.item(container, item.path)?.item.permissions.description == "0755")
        try rawSQL("UPDATE item SET permissions = -1")
        expectCorrupt("permissions") { _ = try index.item(container, item.path) }
    }

    /// A change of mtime alone is stored with the counter of the change that made the content;
    /// rows of before (NULL) made their own content; a counter outside the version is refused.
    @Test func aContentCounterIsKeptAndOneOutsideTheVersionIsRefused() throws {
        var item = file("Documents/touched").changedMetadata(by: me)
        item.mtime += 1
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        let stored = try #require(try index.item(container, item.path)?.item)
        #expect(stored == item && stored.contentCounter == 1 && stored.version[me] == 2)
        try rawSQL("UPDATE item SET contentcounter = NULL")
        #expect(try index.item(container, item.path)?.item.contentCounter == item.version[me])
        try rawSQL("UPDATE item SET contentcounter = 99")
        expectCorrupt("content counter") { _ = try index.item(container, item.path) }
    }

    /// Attributes are kept in their own column (NULL where there are none); damaged ones are
    /// refused, never read as none.
    @Test func attributesAreKeptAndDamagedOnesRefused() throws {
        var item = file("Documents/tagged")
        item.attributes = try ExtendedAttributes([.init(name: "user.xdg.tags", value: Array("red".utf8))])
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        #expect(try index.item(container, item.path)?.item == item)
        try rawSQL("UPDATE item SET attributes = X'01'")
        expectCorrupt("ends early") { _ = try index.item(container, item.path) }
        try rawSQL("UPDATE item SET attributes = X'7B7D'")
        expectCorrupt("extended attributes") { _ = try index.item(container, item.path) }
        try rawSQL("UPDATE item SET attributes = NULL")
        #expect(try index.item(container, item.path)?.item.attributes == .empty)
    }

    /// A package's members are kept in their own column and checked with its chunks when read,
    /// in the item table and in the blobs of needs and conflict versions; damaged ones are
    /// refused, never read as an empty package.
    @Test func aPackagesMembersAreKeptAndDamagedOnesRefused() throws {
        let content = try PackageContent(files: [
            (PackageMember(path: try RelativePath("Data"), kind: .directory, mtime: 2), []),
            (PackageMember(path: try RelativePath("Data/x.png"), kind: .file, size: 60, mtime: 3), [ChunkRef(offset: 0, size: 60, hash: hash)]),
            (PackageMember(path: try RelativePath("Index.xml"), kind: .file, size: 40, mtime: 4), [ChunkRef(offset: 0, size: 40, hash: hash)]),
            (PackageMember(path: try RelativePath("Link"), kind: .symlink, mtime: 5, symlinkTarget: "Index.xml"), []),
        ])
        let loser = ConflictVersion(id: "BBBB-1", kind: .package, size: 60, mtime: 1, executable: false, symlinkTarget: nil,
                                    chunks: [content.chunks[0]], members: Array(content.members.prefix(2)),
                                    version: VersionVector([DeviceID("BBBB"): 1]), modifiedBy: DeviceID("BBBB"))
        let package = Item(path: try RelativePath("Documents/Report.pages"), kind: .package, size: content.size, mtime: 6,
                           chunks: content.chunks, members: content.members, version: VersionVector([me: 1]), modifiedBy: me,
                           conflicts: [loser])
        try index.commit(container, [ItemWrite(item: package, stat: nil)])
        #expect(try index.item(container, package.path)?.item == package)
        #expect(try IndexBinary.decodeItem(IndexBinary.encode(package)) == package)
        #expect(try index.statistics(container).packages == 1)

        try rawSQL("UPDATE item SET members = X'01'")
        expectCorrupt("ends early") { _ = try index.item(container, package.path) }
        var outside = content.members
        outside[3] = PackageMember(path: try RelativePath("Link"), kind: .symlink, mtime: 5, symlinkTarget: "../../x")
        try rawSQL("UPDATE item SET members = ?", [IndexBinary.encode(outside)])
        expectCorrupt("does not hold together") { _ = try index.item(container, package.path) }
        try rawSQL("UPDATE item SET members = ?", [IndexBinary.encode(Array(content.members.prefix(2)))])
        expectCorrupt("beyond its files") { _ = try index.item(container, package.path) }
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
        bytes[3] = 9
        expectCorrupt("unknown item kind 9") { _ = try IndexBinary.decodeItem(Data(bytes)) }
    }

    @Test func aNullOrNegativeWhereTheSchemaWantsAValueIsCorruptNotACrash() throws {
        let item = file("Documents/a.txt")
        try index.commit(container, [ItemWrite(item: item, stat: FileStat(size: 100, mtimeNs: 1, ctimeNs: 2, inode: 3))])
        // statMtime is nullable in the schema, but never NULL beside a stat size; sizes and
        // offsets are never negative.
        try rawSQL("UPDATE item SET statMtime = NULL")
        expectCorrupt("statMtime") { _ = try index.item(container, item.path) }
        expectCorrupt("statMtime") { _ = try index.baselines(container, under: [nil]) }
        try rawSQL("UPDATE item SET statMtime = 1, size = -1")
        expectCorrupt("size") { _ = try index.item(container, item.path) }
        try rawSQL("UPDATE chunk SET offset = -60 WHERE offset = 60")
        #expect(try index.locations(of: hash).map(\.offset) == [0])
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

    /// Items of every kind, their stat, needs, held versions, peer state and the chunks of
    /// item and version files come back as written, through reopening the file.
    @Test func everyTableRoundTripsThroughReopening() throws {
        let peer = DeviceID("BBBB")
        let stat = FileStat(size: 100, mtimeNs: -5, ctimeNs: 6, inode: UInt64.max)
        let folder = Item(path: try RelativePath("Documents"), kind: .directory, version: VersionVector([me: 1]), modifiedBy: me)
        let link = Item(path: try RelativePath("Documents/l"), kind: .symlink, symlinkTarget: "a.txt", version: VersionVector([me: 1]), modifiedBy: me)
        let item = file("Documents/a.txt")
        try index.commit(container, [ItemWrite(item: folder, stat: nil), ItemWrite(item: link, stat: nil), ItemWrite(item: item, stat: stat)])
        let need = file("Documents/b.txt")
        try index.recordRemoteUpdate(container, peer: peer, state: PeerIndexState(indexID: UInt64.max, maxSequence: 9), needs: [need], merges: [],
                                     held: [(item.path, VersionVector([me: 1]))])
        let kept = ChunkHash(bytes: [UInt8](repeating: 8, count: 32))!
        try index.setVersionFile(container, name: "a.txt~BBBB", chunks: [ChunkRef(offset: 0, size: 10, hash: kept)])

        let reopened = try SyncIndex(path: dir.appending("index.sqlite"))
        #expect(try reopened.items(container, under: nil).map(\.item) == [folder, item, link])
        #expect(try reopened.item(container, item.path) == IndexedItem(item: item, sequence: 3, stat: stat))
        let baselines = try reopened.baselines(container, under: [item.path])[0]
        #expect(baselines.paths == [item.path] && baselines.values == [ItemBaseline(stat: stat, deleted: false, downloaded: true)])
        #expect(try reopened.needs(container) == [need])
        #expect(try reopened.peerState(peer, container) == PeerIndexState(indexID: UInt64.max, maxSequence: 9))
        #expect(try reopened.holders(container, item.path, version: VersionVector([me: 1])) == [peer])
        #expect(try reopened.locations(of: kept) == [ChunkLocation(container: container, file: .version("a.txt~BBBB"), offset: 0, size: 10)])
        #expect(try reopened.locations(of: hash).map(\.file) == [.item(item.path), .item(item.path)])
        let stats = try reopened.statistics(container)
        #expect(stats.files == 1 && stats.directories == 1 && stats.symlinks == 1 && stats.bytes == 100)
        #expect(stats.needItems == 1 && stats.needBytes == 100)
    }
}
