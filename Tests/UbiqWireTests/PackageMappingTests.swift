import Foundation
import Testing
import UbiqModel
import UbiqWire

/// A file package on the wire: one entry with its members and the chunk stream of its files,
/// and every member list that could lead a write out of the package refused.
@Suite struct PackageMappingTests {
    let author = DeviceID("AUTHOR")
    static func hash(_ byte: UInt8) -> ChunkHash { ChunkHash(bytes: [UInt8](repeating: byte, count: 32))! }

    func package() throws -> Item {
        let content = try PackageContent(files: [
            (PackageMember(path: try RelativePath("Data"), kind: .directory, mtime: 3, permissions: Permissions(mode: 0o750, kind: .directory)), []),
            (PackageMember(path: try RelativePath("Data/image.png"), kind: .file, size: 40, mtime: 4,
                           attributes: try ExtendedAttributes([.init(name: "user.tag", value: [1])])),
             [ChunkRef(offset: 0, size: 40, hash: Self.hash(2))]),
            (PackageMember(path: try RelativePath("Index.xml"), kind: .file, size: 30, mtime: 5),
             [ChunkRef(offset: 0, size: 10, hash: Self.hash(1)), ChunkRef(offset: 10, size: 20, hash: Self.hash(3))]),
            (PackageMember(path: try RelativePath("Preview"), kind: .symlink, mtime: 6, symlinkTarget: "Data/image.png"), []),
        ])
        let loser = ConflictVersion(id: "OTHER-1", kind: .package, size: 40, mtime: 2, executable: false, symlinkTarget: nil,
                                    chunks: [content.chunks[0]], members: Array(content.members.prefix(2)),
                                    version: VersionVector([DeviceID("OTHER"): 1]), modifiedBy: DeviceID("OTHER"))
        return Item(path: try RelativePath("Documents/Report.pages"), kind: .package, size: content.size, mtime: 9,
                    chunks: content.chunks, members: content.members, version: VersionVector([author: 1]), modifiedBy: author,
                    conflicts: [loser])
    }

    @Test func aPackageTravelsAsOneEntry() throws {
        let item = try package()
        let info = ItemMapping.fileInfo(item, sequence: 3, grouped: true)
        #expect(info.kind == .package && info.members.count == 4 && info.blocks.count == 3 && info.chunkGroups.isEmpty)
        #expect(try ItemMapping.item(try Ubiq_Wire_FileInfo(serializedBytes: info.serializedBytes() as [UInt8])) == item)
        var deleted = item
        deleted.deleted = true
        deleted.chunks = []
        deleted.members = []
        deleted.size = 0
        #expect(try ItemMapping.item(ItemMapping.fileInfo(deleted, sequence: 4)) == deleted)
    }

    @Test func memberListsThatCouldLeadAWriteAstrayAreRefused() throws {
        let good = ItemMapping.fileInfo(try package(), sequence: 1)
        func refused(_ change: (inout Ubiq_Wire_FileInfo) -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
            var info = good
            change(&info)
            #expect(throws: WireError.self, sourceLocation: sourceLocation) { try ItemMapping.item(info) }
        }
        for path in ["../outside", "/etc/passwd", "Data/../../x", "", "a//b"] { refused { $0.members[1].path = path } }
        refused { $0.members[3].symlinkTarget = "../../../etc" }
        refused { $0.members[3].symlinkTarget = "/etc/passwd" }
        refused { $0.members[1].kind = .package }
        refused { $0.members.swapAt(0, 1) }
        refused { $0.members.append($0.members[3]) }
        refused { $0.members[2].size = 29 }
        refused { $0.members[0].symlinkTarget = "x" }
        refused { $0.members[0].size = 1 }
        refused { $0.conflicts[0].members[1].path = "../x" }
        // Members only on a present package.
        refused { $0.kind = .directory }
        refused { $0.deleted = true; $0.blocks = []; $0.size = 0 }
        refused { $0.kind = .file }
        // A package never names chunk groups.
        refused { $0.blocks = []; $0.chunkGroups = [.with { $0.hash = Data(repeating: 1, count: 32); $0.chunks = 3; $0.size = 70 }] }
        refused { $0.members = (0...PackageContent.maxMembers).map { number in .with { $0.path = "m\(number)"; $0.kind = .directory } } }
    }
}
