import Foundation
import Testing
import UbiqChunking
import UbiqFileSystem
import UbiqModel

/// Reading a package folder on disk: everything inside as one content, a fingerprint that
/// moves with any change inside, files read again only where they changed, and what cannot
/// travel left out or refused.
struct PackageReaderTests {
    let fixture: ContainerFixture
    init() throws { fixture = try ContainerFixture() }

    func read(_ name: String = "Report.pages", previous: PackageContent? = nil) throws -> PackageReading {
        let fd = open(fixture.absolute(name), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
        defer { close(fd) }
        return try PackageReader().read(fd, name: name, previous: previous)
    }

    func makeDocument() throws {
        try fixture.write("Report.pages/Index.xml", testBytes(300_000, seed: 1))
        try fixture.write("Report.pages/Data/image.png", testBytes(40_000, seed: 2), mode: 0o600)
        try fixture.write("Report.pages/Data/Thumbs/small.png", "thumb")
        try fixture.mkdir("Report.pages/Empty")
        try fixture.symlink("Report.pages/Preview", to: "Data/Thumbs/small.png")
        try fixture.symlink("Report.pages/Data/Up", to: "../Index.xml")
    }

    @Test func everythingInsideIsOneContent() throws {
        try makeDocument()
        let reading = try read()
        let content = reading.content
        #expect(content.members.map(\.path.rawValue) == [
            "Data", "Data/Thumbs", "Data/Thumbs/small.png", "Data/Up", "Data/image.png", "Empty", "Index.xml", "Preview",
        ])
        #expect(content.size == 340_005 && reading.fingerprint.size == 340_005)
        #expect(reading.filesHashed == 3 && reading.leftOut.isEmpty)
        let image = try #require(content.members.first { $0.path.rawValue == "Data/image.png" })
        #expect(image.permissions.bits == 0o600 && image.size == 40_000)
        #expect(content.members.first { $0.path.rawValue == "Data/Up" }?.symlinkTarget == "../Index.xml")
        // Each file's chunks are the chunks of the file alone.
        let index = try #require(content.members.firstIndex { $0.path.rawValue == "Index.xml" })
        #expect(content.fileChunks(of: index) == (try FileChunkerFixture.chunks(fixture.absolute("Report.pages/Index.xml"))))
    }

    @Test func theFingerprintMovesWithAnyChangeInsideAndOnlyChangedFilesAreRead() throws {
        try makeDocument()
        let first = try read()
        #expect(try read().fingerprint == first.fingerprint)
        let again = try read(previous: first.content)
        #expect(again.filesHashed == 0 && again.content == first.content)

        try fixture.write("Report.pages/Data/Thumbs/small.png", "THUMB")
        let edited = try read(previous: first.content)
        #expect(edited.fingerprint != first.fingerprint)
        #expect(edited.filesHashed == 1 && edited.content.changedMembers(since: first.content).map { edited.content.members[$0].path.rawValue }
            == ["Data/Thumbs/small.png"])

        #expect(rename(fixture.absolute("Report.pages/Empty"), fixture.absolute("Report.pages/Renamed")) == 0)
        let renamed = try read(previous: edited.content)
        #expect(renamed.fingerprint != edited.fingerprint && renamed.filesHashed == 0)
        #expect(renamed.content.members.contains { $0.path.rawValue == "Renamed" })

        #expect(unlink(fixture.absolute("Report.pages/Data/image.png")) == 0)
        let deleted = try read(previous: renamed.content)
        #expect(deleted.fingerprint != renamed.fingerprint && deleted.content.size == 300_005)
    }

    func fingerprint(changeTimes: Bool) throws -> FileStat {
        let fd = open(fixture.absolute("Report.pages"), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
        defer { close(fd) }
        return try PackageReader().fingerprint(fd, name: "Report.pages", changeTimes: changeTimes)
    }

    /// From stat facts alone (a link leading out too) the fingerprint is the reading's, so the
    /// engine checks a package without opening its files; the stamp ignores a new hard link.
    @Test func theFingerprintFromStatsAloneIsTheReadingsAndTheStampIgnoresLinks() throws {
        try makeDocument()
        try fixture.symlink("Report.pages/Out", to: "../../elsewhere")
        #expect(try fingerprint(changeTimes: true) == read().fingerprint)
        let stamp = try fingerprint(changeTimes: false)
        #expect(link(fixture.absolute("Report.pages/Index.xml"), fixture.absolute("linked-elsewhere")) == 0)
        #expect(try fingerprint(changeTimes: false) == stamp)
        #expect(try fingerprint(changeTimes: true) == read().fingerprint)
        try fixture.write("Report.pages/Data/Thumbs/small.png", "THUMB")
        #expect(try fingerprint(changeTimes: false) != stamp)
        #expect(try fingerprint(changeTimes: true) == read().fingerprint)
    }

    @Test func whatCannotTravelIsLeftOutOrRefused() throws {
        try makeDocument()
        try fixture.symlink("Report.pages/Escape", to: "../../outside")
        try fixture.symlink("Report.pages/Absolute", to: "/etc/passwd")
        #expect(mkfifo(fixture.absolute("Report.pages/pipe"), 0o600) == 0)
        let reading = try read()
        #expect(reading.leftOut.map(\.path).sorted() == ["Report.pages/Absolute", "Report.pages/Escape", "Report.pages/pipe"])
        #expect(!reading.content.members.contains { ["Absolute", "Escape", "pipe"].contains($0.path.rawValue) })

        let raw = (Array(fixture.absolute("Report.pages/Data/bad").utf8) + [0xFF, 0]).map { CChar(bitPattern: $0) }
        let fd = open(raw, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        close(fd)
        do {
            _ = try read()
            Issue.record("a package with a name that is not UTF-8 was read")
        } catch let error as PackageReadError {
            if case .failed(let failure) = error {
                #expect(failure.message.contains("not a UTF-8 name"), "\(failure)")
            } else {
                Issue.record("\(error)")
            }
        }
    }
}

/// The chunks the scanner's chunker gives a whole file, to compare with.
enum FileChunkerFixture {
    static func chunks(_ path: String) throws -> [ChunkRef] {
        try FileChunker().chunks(ofFileAt: path).chunks
    }
}
