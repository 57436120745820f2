import Foundation
import Testing
import UbiqFileSystem
import UbiqModel

/// A package's new version built in `.ubiq/tmp/` and put in place with one exchange: the
/// whole new tree, exactly as described, or the old one; the old one kept aside after.
struct PackageStagingTests {
    let fixture: ContainerFixture
    init() throws { fixture = try ContainerFixture() }

    func reading(_ absolute: String) throws -> PackageReading {
        let fd = open(absolute, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
        defer { close(fd) }
        return try PackageReader().read(fd, name: absolute, previous: nil)
    }

    func tempFile(_ text: String) throws -> TempFile {
        let file = try fixture.fileSystem.makeTempFile()
        try file.write(Array(text.utf8), at: 0)
        return file
    }

    static func member(_ raw: String, _ kind: ItemKind, size: UInt64 = 0, mtime: Int64, mode: UInt32? = nil, target: String? = nil) -> PackageMember {
        PackageMember(path: path(raw), kind: kind, size: size, mtime: mtime, permissions: mode.map { Permissions(mode: $0, kind: kind) },
                      symlinkTarget: target)
    }

    @Test func aNewVersionReplacesTheOldInOneExchange() throws {
        try fixture.write("Documents/Report.pages/Index.xml", "old index")
        try fixture.write("Documents/Report.pages/Data/image.png", testBytes(50_000, seed: 4), mode: 0o640)
        try fixture.write("Documents/Report.pages/Data/Thumbs/small.png", "thumb")
        let old = try reading(fixture.absolute("Documents/Report.pages"))
        let image = try #require(old.content.members.first { $0.path.rawValue == "Data/image.png" })

        let fs = fixture.fileSystem
        let staging = try fs.stagePackage()
        let members = [
            Self.member("Data", .directory, mtime: 1_000_000_001, mode: 0o750),
            image,
            Self.member("Index.xml", .file, size: 9, mtime: 1_000_000_003, mode: 0o600),
            Self.member("Media", .directory, mtime: 1_000_000_004),
            Self.member("Media/clip", .file, size: 4, mtime: 1_000_000_005),
            Self.member("Preview", .symlink, mtime: 1_000_000_006, target: "Index.xml"),
        ]
        try staging.addFolder(members[0])
        try staging.addFile(members[1], sharing: path("Documents/Report.pages/Data/image.png"), linkable: true)
        try staging.addFile(members[2], from: try tempFile("new index"))
        try staging.addFolder(members[3])
        try staging.addFile(members[4], from: try tempFile("clip"))
        try staging.addLink(members[5])
        let package = Self.member("Report.pages", .directory, mtime: 1_000_000_009, mode: 0o755)
        try staging.finishFolders(members, package: package)

        let swap = try fs.exchange(staging, into: path("Documents/Report.pages"))
        #expect(swap == .replaced(previous: staging.name))
        // Exactly the version described, read back as the scanner reads it.
        let now = try reading(fixture.absolute("Documents/Report.pages"))
        #expect(now.content.members == members)
        #expect(fixture.read("Documents/Report.pages/Index.xml") == Array("new index".utf8))
        #expect(fixture.lstatOf("Documents/Report.pages").map { Int64($0.st_mtim.tv_sec) * 1_000_000_000 + Int64($0.st_mtim.tv_nsec) } == 1_000_000_009)
        // The old tree whole, aside in .ubiq/tmp/ until it goes to the history.
        let previous = fixture.absolute(".ubiq/tmp/" + staging.name)
        #expect(try reading(previous).content == old.content)
        try fs.removeStaged(staging.name)
        #expect(!FileManager.default.fileExists(atPath: previous))
    }

    @Test func aPackageIsCreatedWhereThereWasNoneAndNeverReplacesAFile() throws {
        let fs = fixture.fileSystem
        let staging = try fs.stagePackage()
        let note = Self.member("note.txt", .file, size: 2, mtime: 7)
        try staging.addFile(note, from: try tempFile("hi"))
        try staging.finishFolders([note], package: Self.member("New.pages", .directory, mtime: 8))
        #expect(try fs.exchange(staging, into: path("Documents/Sub/New.pages")) == .created)
        #expect(try reading(fixture.absolute("Documents/Sub/New.pages")).content.members == [note])

        try fixture.write("Documents/Flat.pages", "a file, not a folder")
        let other = try fs.stagePackage()
        try other.finishFolders([], package: Self.member("Flat.pages", .directory, mtime: 8))
        #expect(throws: FileSystemError.self) { try fs.exchange(other, into: path("Documents/Flat.pages")) }
        #expect(fixture.read("Documents/Flat.pages") == Array("a file, not a folder".utf8))
        // A staging given up is gone after the next start's clean-up.
        try fs.removeTemporaryFiles()
        #expect(!FileManager.default.fileExists(atPath: fixture.absolute(".ubiq/tmp/" + other.name)))
    }

    /// A tree that goes to the history shares no file with its successor except by extents
    /// (btrfs, xfs): elsewhere an unchanged file is copied, not hard linked, so an edit in
    /// place of the new version leaves the kept one as it was.
    @Test func aTreeToBeKeptSharesNoFileWithItsSuccessor() throws {
        try fixture.write("Documents/Report.pages/Index.xml", "the index")
        try fixture.write("Documents/Report.pages/image.png", testBytes(300_000, seed: 9), mode: 0o640)
        let old = try reading(fixture.absolute("Documents/Report.pages"))
        let fs = fixture.fileSystem
        let staging = try fs.stagePackage()
        for member in old.content.members {
            try staging.addFile(member, sharing: path("Documents/Report.pages/" + member.path.rawValue), linkable: false)
        }
        try staging.finishFolders(old.content.members, package: Self.member("Report.pages", .directory, mtime: 1_000_000_009))
        guard case .replaced(let previous) = try fs.exchange(staging, into: path("Documents/Report.pages")) else {
            Issue.record("nothing was replaced")
            return
        }
        #expect(try reading(fixture.absolute("Documents/Report.pages")).content.members == old.content.members)

        let live = open(fixture.absolute("Documents/Report.pages/image.png"), O_WRONLY | O_CLOEXEC)
        #expect(live >= 0)
        #expect(pwrite(live, "edited in place", 15, 1000) == 15)
        close(live)
        try fs.keepStagedInHistory(previous, as: "h-1")
        let keptImage = fixture.read(".ubiq/history/h-1/image.png") == testBytes(300_000, seed: 9)
        #expect(keptImage, "the kept image changed with an edit in place of the new version")
        #expect(fixture.read(".ubiq/history/h-1/Index.xml") == Array("the index".utf8))
    }

    /// A replaced package's tree goes to the history, a deleted one too; files inside a kept
    /// tree are read by their path in it, never through a link; pruning removes the tree.
    @Test func aKeptTreeIsReadInsideAndRemovedWhole() throws {
        try fixture.write("Documents/Report.pages/Index.xml", "kept index")
        try fixture.write("Documents/Report.pages/Data/image.png", "kept image")
        try fixture.symlink("Documents/Report.pages/Data/link", to: "image.png")
        let fs = fixture.fileSystem
        try fs.removeTreeKeeping(path("Documents/Report.pages"), as: "h-1")
        #expect(!fixture.exists("Documents/Report.pages"))
        let fd = try fs.openHistoryMember(named: "h-1", member: path("Data/image.png"))
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &buffer, 64)
        close(fd)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "kept image")
        #expect(throws: FileSystemError.self) { try fs.openHistoryMember(named: "h-1", member: path("Data/link")) }
        #expect(throws: FileSystemError.self) { try fs.openHistoryMember(named: "../h-1", member: path("Index.xml")) }

        try fixture.write("Documents/Other.pages/Index.xml", "other")
        let staging = try fs.stagePackage()
        try staging.addFolder(PackageMember(path: path("Data"), kind: .directory))
        try staging.finishFolders([PackageMember(path: path("Data"), kind: .directory)], package: PackageMember(path: path("Other.pages"), kind: .directory))
        guard case .replaced(let previous) = try fs.exchange(staging, into: path("Documents/Other.pages")) else {
            Issue.record("nothing was replaced")
            return
        }
        try fs.keepStagedInHistory(previous, as: "h-2")
        #expect(try fs.historyNames() == ["h-1", "h-2"])
        #expect(String(decoding: try #require(fixture.read(".ubiq/history/h-2/Index.xml")), as: UTF8.self) == "other")

        try fs.removeHistory("h-1")
        try fs.removeHistory("h-2")
        try fs.removeHistory("h-3")
        #expect(try fs.historyNames().isEmpty)
    }
}
