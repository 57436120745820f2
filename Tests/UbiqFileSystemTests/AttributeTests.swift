import Foundation
import Testing
@testable import UbiqFileSystem
import UbiqModel
import UbiqTestSupport

/// The `user.` extended attributes on disk: the scanner reads them with a file or folder and
/// leaves the other namespaces alone, writes give a file exactly the set asked for, and a set
/// past the limit is reported instead of sent.
@Suite struct AttributeTests {
    static let tags = try! ExtendedAttributes([
        .init(name: "user.xdg.tags", value: Array("holiday,beach".utf8)),
        .init(name: "user.checksum", value: [0, 1, 2, 0xFF, 0]),
    ])

    static func setAttribute(_ path: String, _ name: String, _ value: [UInt8]) {
        var attributes = (try? ExtendedAttributes.read(atPath: path).attributes) ?? []
        attributes.removeAll { $0.name == name }
        attributes.append(.init(name: name, value: value))
        #expect(throws: Never.self) { try ExtendedAttributes(attributes).write(toPath: path) }
    }

    @Test func theScannerReadsTheAttributesOfFilesAndFolders() throws {
        let c = try ContainerFixture()
        try c.write("Documents/photo.jpg", "jpeg")
        try c.write("Documents/plain.txt", "text")
        try c.mkdir("Documents/album")
        try Self.tags.write(toPath: c.absolute("Documents/photo.jpg"))
        Self.setAttribute(c.absolute("Documents/album"), "user.xdg.comment", Array("summer".utf8))

        let found = Dictionary(uniqueKeysWithValues: try c.scanner.scan(baseline: EmptyScanBaseline()).changed.map { ($0.path, $0) })
        #expect(found[path("Documents/photo.jpg")]?.attributes == Self.tags)
        #expect(found[path("Documents/plain.txt")]?.attributes == .empty)
        #expect(found[path("Documents/album")]?.attributes?["user.xdg.comment"] == Array("summer".utf8))

        var off = c.scanner
        off.readsAttributes = false
        let unread = try off.scan(baseline: EmptyScanBaseline()).changed
        #expect(unread.allSatisfy { $0.attributes == nil })
    }

    /// A change of attributes alone changes the ctime, so the scanner looks at the file again.
    @Test func aChangeOfAttributesAloneIsSeenByTheNextScan() throws {
        let c = try ContainerFixture()
        try c.write("Documents/photo.jpg", "jpeg")
        let first = try c.scanner.scan(baseline: EmptyScanBaseline())
        let baseline = Dictionary(uniqueKeysWithValues: first.changed.map { ($0.path, $0.stat) })
        Self.setAttribute(c.absolute("Documents/photo.jpg"), "user.xdg.tags", Array("new".utf8))
        let second = try c.scanner.scan(baseline: baseline)
        #expect(second.changed.map(\.path) == [path("Documents/photo.jpg")])
        #expect(second.changed.first?.attributes?["user.xdg.tags"] == Array("new".utf8))
    }

    @Test func writesLeaveExactlyTheSetAskedForAndOtherNamespacesAlone() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        let file = try fs.makeTempFile()
        try file.write(Array("jpeg".utf8), at: 0)
        try fs.commit(file, to: path("Documents/photo.jpg"), permissions: .defaults(for: .file), mtimeNs: 1, attributes: Self.tags)
        #expect(try ExtendedAttributes.read(atPath: c.absolute("Documents/photo.jpg")) == Self.tags)

        // In place: one attribute changed, one removed, one added.
        Self.setAttribute(c.absolute("Documents/photo.jpg"), "user.stale", [9])
        let seen = try #require(fs.fileStat(of: path("Documents/photo.jpg")))
        let next = try ExtendedAttributes([.init(name: "user.xdg.tags", value: Array("holiday".utf8)), .init(name: "user.rating", value: [5])])
        _ = try fs.setMetadata(of: path("Documents/photo.jpg"), permissions: .defaults(for: .file), mtimeNs: 2, attributes: next, expected: seen)
        #expect(try ExtendedAttributes.read(atPath: c.absolute("Documents/photo.jpg")) == next)

        // Nil leaves them as they are.
        let again = try #require(fs.fileStat(of: path("Documents/photo.jpg")))
        _ = try fs.setMetadata(of: path("Documents/photo.jpg"), permissions: .defaults(for: .file), mtimeNs: 3, expected: again)
        #expect(try ExtendedAttributes.read(atPath: c.absolute("Documents/photo.jpg")) == next)

        try fs.makeDirectory(path("Documents/album"), permissions: .defaults(for: .directory), attributes: Self.tags)
        #expect(try ExtendedAttributes.read(atPath: c.absolute("Documents/album")) == Self.tags)
    }

    /// Setting a `user.` attribute needs write permission; a read-only file still gets its
    /// attributes, and keeps its permissions. Run as `nobody`, who owns the file: root would
    /// not need the permission.
    @Test func aReadOnlyFileGetsItsAttributesAndStaysReadOnly() throws {
        let c = try ContainerFixture()
        try c.write("Documents/readonly.txt", Array("text".utf8), mode: 0o400)
        if geteuid() == 0 {
            OrdinaryUser.open(c.absolute("Documents"), upTo: c.directory.path)
            #expect(chown(c.absolute("Documents/readonly.txt"), OrdinaryUser.uid, OrdinaryUser.uid) == 0)
        }
        let fs = c.fileSystem, file = path("Documents/readonly.txt")
        let seen = try #require(fs.fileStat(of: file))
        let stat = try OrdinaryUser.run {
            try fs.setMetadata(of: file, permissions: Permissions(mode: 0o400, kind: .file), mtimeNs: 5, attributes: Self.tags, expected: seen)
        }
        #expect(try ExtendedAttributes.read(atPath: c.absolute("Documents/readonly.txt")) == Self.tags)
        #expect(try #require(c.lstatOf("Documents/readonly.txt")).st_mode & 0o7777 == 0o400)
        #expect(stat.mtimeNs == 5)
    }

    static let canMount = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount")

    /// ext4 holds about 4 KiB of attributes per file; a tmpfs holds more than the limit.
    @Test(.enabled(if: canMount, "needs root to mount a tmpfs, which holds more than 64 KiB of attributes"))
    func aSetPastTheLimitIsReportedAndNotRead() throws {
        let c = try ContainerFixture()
        try #require(try exitStatus(of: ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", c.absolute("Documents")]) == 0)
        defer { _ = try? exitStatus(of: ["umount", c.absolute("Documents")]) }
        try c.write("Documents/huge.bin", "bytes")
        try c.write("Documents/fine.bin", "bytes")
        for index in 0..<40 {
            #expect(setRawAttribute(c.absolute("Documents/huge.bin"), "user.part\(index)", [UInt8](repeating: 1, count: 2000)) == 0)
        }
        let result = try c.scanner.scan(baseline: EmptyScanBaseline())
        let found = Dictionary(uniqueKeysWithValues: result.changed.map { ($0.path, $0) })
        #expect(result.oversizedAttributes[path("Documents/huge.bin")] == 40 * 2000 + (0..<40).map { "user.part\($0)".utf8.count }.reduce(0, +))
        let huge = try #require(found[path("Documents/huge.bin")], "the file is still described")
        #expect(huge.attributes?.byteCount == nil, "without its attributes")
        #expect(huge.chunks.count == 1)
        #expect(found[path("Documents/fine.bin")]?.attributes == .empty)
    }
}
