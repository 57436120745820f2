import Foundation
import Testing
import UbiqFileSystem
import UbiqModel

/// The folder's marker as the probe reads it, with the cache that spares it a read and a
/// decode while the file keeps its stat: a marker written anew, replaced by another folder's
/// copy, damaged or removed is seen at the next probe.
@Suite struct FolderMarkerFileTests {
    static func marker(_ id: UInt64) -> FolderMarker {
        FolderMarker.new(container: "TEAMID.com.example.notes", account: "acct", random: { id })
    }

    @Test func aCachedMarkerIsReadAgainWheneverItsFileChanges() throws {
        let c = try ContainerFixture()
        let cache = FolderMarkerFile.Cache()
        #expect(FolderMarkerFile.probe(c.layout, cache: cache).marker == .absent)
        let first = Self.marker(1)
        try FolderMarkerFile.write(first, in: c.layout)
        #expect(FolderMarkerFile.probe(c.layout, cache: cache).marker == .found(first))
        #expect(FolderMarkerFile.probe(c.layout, cache: cache).marker == .found(first))

        let second = Self.marker(2)
        try FolderMarkerFile.write(second, in: c.layout)
        #expect(FolderMarkerFile.probe(c.layout, cache: cache).marker == .found(second))

        // Another folder's marker copied over it in place (same inode, same size).
        let third = Self.marker(3)
        let path = FolderMarkerFile.path(in: c.layout)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: third.encoded())
        try handle.close()
        #expect(FolderMarkerFile.probe(c.layout, cache: cache).marker == .found(third))

        try Data("not a marker".utf8).write(to: URL(fileURLWithPath: path))
        let damaged = FolderMarkerFile.probe(c.layout, cache: cache).marker
        #expect(damaged == .unreadable("it is not a ubiq folder marker"), "\(damaged)")
        try FolderMarkerFile.write(first, in: c.layout)
        #expect(FolderMarkerFile.probe(c.layout, cache: cache).marker == .found(first))
        #expect(unlink(path) == 0)
        #expect(FolderMarkerFile.probe(c.layout, cache: cache).marker == .absent)
    }
}
