import Foundation
import Testing
@testable import UbiqIndex
import UbiqModel
import UbiqTestSupport

/// A package's chunks are listed at its files' own paths inside it, with offsets from each
/// file's start, so that local copies read them like any file's; a new version, a deletion or
/// an absent package leaves no row behind.
@Suite struct PackageChunkRowTests {
    let dir: TempDirectory
    let index: SyncIndex
    let container = try! ContainerID("TEAMID.com.example.notes")
    let me = DeviceID("AAAA")

    init() throws {
        dir = try TempDirectory()
        index = try SyncIndex(path: dir.appending("index.sqlite"))
    }

    static func hash(_ byte: UInt8) -> ChunkHash { ChunkHash(bytes: [UInt8](repeating: byte, count: 32))! }

    func package(_ files: [(String, [ChunkRef])], counter: UInt64) throws -> Item {
        var entries: [(member: PackageMember, chunks: [ChunkRef])] = [(PackageMember(path: try RelativePath("Data"), kind: .directory), [])]
        for (name, chunks) in files {
            let size = chunks.reduce(UInt64(0)) { $0 + UInt64($1.size) }
            entries.append((PackageMember(path: try RelativePath(name), kind: .file, size: size, mtime: 1), chunks))
        }
        let content = try PackageContent(files: entries)
        return Item(path: try RelativePath("Documents/Report.pages"), kind: .package, size: content.size, mtime: 1,
                    chunks: content.chunks, members: content.members, version: VersionVector([me: counter]), modifiedBy: me)
    }

    func files(of hash: ChunkHash) throws -> [String] {
        try index.locations(of: hash).map { location in
            guard case .item(let path) = location.file else { return "other" }
            return "\(path.rawValue)@\(location.offset)"
        }.sorted()
    }

    @Test func eachFileOfAPackageIsListedAtItsOwnPath() throws {
        let (a, b, c) = (Self.hash(1), Self.hash(2), Self.hash(3))
        let first = try package([
            ("Data/one.bin", [ChunkRef(offset: 0, size: 100, hash: a), ChunkRef(offset: 100, size: 50, hash: b)]),
            ("Index.xml", [ChunkRef(offset: 0, size: 30, hash: c)]),
        ], counter: 1)
        // The stream puts Index.xml's chunk at 150; the row says 0, in Index.xml.
        #expect(first.chunks.map(\.offset) == [0, 100, 150])
        try index.commit(container, [ItemWrite(item: first, stat: nil)])
        #expect(try files(of: a) == ["Documents/Report.pages/Data/one.bin@0"])
        #expect(try files(of: b) == ["Documents/Report.pages/Data/one.bin@100"])
        #expect(try files(of: c) == ["Documents/Report.pages/Index.xml@0"])

        // A new version without Index.xml: its row goes.
        let second = try package([("Data/one.bin", [ChunkRef(offset: 0, size: 100, hash: a)])], counter: 2)
        try index.commit(container, [ItemWrite(item: second, stat: nil)])
        #expect(try files(of: c).isEmpty && files(of: b).isEmpty)
        #expect(try files(of: a) == ["Documents/Report.pages/Data/one.bin@0"])

        // Recorded without its content (not downloaded), then deleted: no rows.
        try index.commit(container, [ItemWrite(item: second, stat: nil, downloaded: false)])
        #expect(try files(of: a).isEmpty)
        try index.commit(container, [ItemWrite(item: first, stat: nil)])
        var gone = first.changedContent(by: me)
        gone.deleted = true
        gone.chunks = []
        gone.members = []
        try index.commit(container, [ItemWrite(item: gone, stat: nil)])
        #expect(try files(of: a).isEmpty && files(of: c).isEmpty)
    }

    @Test func aFileBesideThePackageKeepsItsRows() throws {
        let a = Self.hash(1)
        let beside = Item(path: try RelativePath("Documents/Report.pages.txt"), kind: .file, size: 100, mtime: 1,
                          chunks: [ChunkRef(offset: 0, size: 100, hash: a)], version: VersionVector([me: 1]), modifiedBy: me)
        try index.commit(container, [ItemWrite(item: beside, stat: nil)])
        try index.commit(container, [ItemWrite(item: try package([("Index.xml", [ChunkRef(offset: 0, size: 100, hash: a)])], counter: 1), stat: nil)])
        #expect(try files(of: a) == ["Documents/Report.pages.txt@0", "Documents/Report.pages/Index.xml@0"])
    }
}
