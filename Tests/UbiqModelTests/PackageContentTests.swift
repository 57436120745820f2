import Foundation
import Testing
import UbiqModel

/// A package's content as the scanner builds it and as a peer sends it: one chunk stream for
/// its files, and every way a peer's list could lead a write astray refused.
struct PackageContentTests {
    static func hash(_ byte: UInt8) -> ChunkHash { ChunkHash(bytes: [UInt8](repeating: byte, count: 32))! }
    static func path(_ raw: String) -> RelativePath { try! RelativePath(raw) }
    static func folder(_ raw: String) -> PackageMember { PackageMember(path: path(raw), kind: .directory, mtime: 5) }
    static func file(_ raw: String, _ size: UInt64, mtime: Int64 = 7) -> PackageMember {
        PackageMember(path: path(raw), kind: .file, size: size, mtime: mtime)
    }
    static func link(_ raw: String, _ target: String) -> PackageMember { PackageMember(path: path(raw), kind: .symlink, symlinkTarget: target) }

    /// A document: Index.xml (2 chunks), Data/ with an image (1 chunk) and an empty file,
    /// and a link to the index.
    static let files: [(member: PackageMember, chunks: [ChunkRef])] = [
        (link("Preview", "Index.xml"), []),
        (file("Data/image.png", 300, mtime: 9), [ChunkRef(offset: 0, size: 300, hash: hash(3))]),
        (folder("Data"), []),
        (file("Index.xml", 250), [ChunkRef(offset: 0, size: 200, hash: hash(1)), ChunkRef(offset: 200, size: 50, hash: hash(2))]),
        (file("Data/empty", 0), []),
    ]

    @Test func filesAreLaidEndToEndInPathOrder() throws {
        let content = try PackageContent(files: Self.files)
        #expect(content.members.map(\.path.rawValue) == ["Data", "Data/empty", "Data/image.png", "Index.xml", "Preview"])
        #expect(content.size == 550)
        #expect(content.chunks.map(\.offset) == [0, 300, 500])
        #expect(content.chunks.map(\.hash) == [Self.hash(3), Self.hash(1), Self.hash(2)])
        #expect(content.latestChange == 9)
        // Each file's own chunks come back as the scanner found them.
        for (member, chunks) in Self.files {
            let index = try #require(content.members.firstIndex(of: member))
            #expect(content.fileChunks(of: index) == chunks, "\(member.path)")
        }
        let copy = try JSONDecoder().decode(PackageContent.self, from: JSONEncoder().encode(content))
        #expect(copy == content)
    }

    @Test func onlyWhatDiffersIsChanged() throws {
        let before = try PackageContent(files: Self.files)
        #expect(before.changedMembers(since: before).isEmpty)
        #expect(before.changedMembers(since: nil).count == 5)
        var files = Self.files
        files[3].chunks[1] = ChunkRef(offset: 200, size: 50, hash: Self.hash(9))
        files.append((Self.file("Data/new.txt", 4), [ChunkRef(offset: 0, size: 4, hash: Self.hash(4))]))
        files[0].member.mtime = 99
        let after = try PackageContent(files: files)
        let changed = after.changedMembers(since: before).map { after.members[$0].path.rawValue }
        #expect(changed == ["Data/new.txt", "Index.xml", "Preview"])
    }

    @Test func aPeersListThatCouldLeadAWriteAstrayIsRefused() throws {
        let good = try PackageContent(files: Self.files)
        func refused(_ members: [PackageMember], _ chunks: [ChunkRef], _ phrase: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try PackageContent(members: members, chunks: chunks)
                Issue.record("taken: \(members.map(\.path.rawValue))", sourceLocation: sourceLocation)
            } catch {
                #expect(error.code == .invalidPackage && error.reason.contains(phrase), "\(error)", sourceLocation: sourceLocation)
            }
        }
        let members = good.members, chunks = good.chunks
        refused(members.reversed(), chunks, "out of order")
        refused([members[0], members[0]], [], "listed twice")
        refused([Self.file("Gone/x", 0)], [], "not a folder of the package")
        refused([Self.file("Index.xml", 0), Self.file("Index.xml/x", 0)], [], "not a folder of the package")
        for target in ["../outside", "/etc/passwd", "Data/../../x", ""] {
            refused([Self.link("Link", target)], [], target.isEmpty ? "points out" : "points out")
        }
        refused([Self.folder("Data"), Self.link("Data/up", "../../x")], [], "points out")
        refused([Self.file("a", 10)], [ChunkRef(offset: 0, size: 4, hash: Self.hash(1))], "do not cover")
        refused([Self.file("a", 10)], [ChunkRef(offset: 0, size: 12, hash: Self.hash(1))], "runs past")
        refused([Self.file("a", 4), Self.file("b", 4)], [ChunkRef(offset: 0, size: 8, hash: Self.hash(1))], "runs past")
        refused([Self.file("a", 4)], [ChunkRef(offset: 1, size: 4, hash: Self.hash(1))], "do not cover")
        refused([Self.file("a", 4)], [ChunkRef(offset: 0, size: 4, hash: Self.hash(1)), ChunkRef(offset: 4, size: 4, hash: Self.hash(1))],
                "beyond its files")
        refused([PackageMember(path: Self.path("d"), kind: .directory, size: 3)], [], "with a size")
        refused([PackageMember(path: Self.path("f"), kind: .file, symlinkTarget: "x")], [], "with a link target")
        refused([PackageMember(path: Self.path("l"), kind: .symlink)], [], "without a link target")
        refused((0...PackageContent.maxMembers).map { Self.folder(String(format: "m%06d", $0)) }, [], "more than")
        // A link may lead anywhere inside, also up from a folder.
        #expect(throws: Never.self) { try PackageContent(members: [Self.folder("Data"), Self.link("Data/up", "../Index.xml")], chunks: []) }
        // Inner paths are container paths: no `..`, no absolute path, no empty component.
        for bad in ["../x", "a/../b", "/a", "a//b"] { #expect(throws: ModelError.self) { try RelativePath(bad) } }
        // Decoding (the index's copy) checks the same.
        let text = String(decoding: try JSONEncoder().encode(try PackageContent(members: [Self.link("x", "inside")], chunks: [])), as: UTF8.self)
        #expect(text.contains(#""inside""#))
        let outside = Data(text.replacingOccurrences(of: #""inside""#, with: #""../..""#).utf8)
        #expect(throws: ModelError.self) { try JSONDecoder().decode(PackageContent.self, from: outside) }
    }

    @Test func packagesAreFoldersWithAListedExtensionAtAnyDepth() throws {
        let rules = PackageRules(extensions: ["pages", "Bundle"])
        for name in ["Report.pages", "report.PAGES", "a.b.pages", "Plug.bundle"] { #expect(rules.isPackageName(name[...]), "\(name)") }
        for name in [".pages", "pages", "Report.txt", "Report.pages.txt", "Report."] { #expect(!rules.isPackageName(name[...]), "\(name)") }
        #expect(rules.package(containing: Self.path("Documents/Report.pages/Data/x.png")) == Self.path("Documents/Report.pages"))
        #expect(rules.package(containing: Self.path("A.pages/B.bundle/x")) == Self.path("A.pages"))
        #expect(rules.package(containing: Self.path("Documents/Report.pages")) == nil)
        #expect(rules.package(containing: Self.path("Documents/notes.txt")) == nil)
        #expect(PackageRules.none.package(containing: Self.path("A.pages/x")) == nil)
    }
}
