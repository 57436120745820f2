import Foundation
import Testing
import UbiqFileSystem
import UbiqModel
import UbiqTestSupport

/// `commitNew` creates a file where nothing is, and never replaces or follows anything.
@Suite struct SafeFileSystemCreateTests {
    private func tempNames(_ c: ContainerFixture) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: c.layout.temporaryFolder)
    }

    @Test func createsTheFileAndItsFoldersWithModeAndMtime() throws {
        let c = try ContainerFixture()
        let file = try c.fileSystem.makeTempFile()
        try file.write(Array("kept".utf8), at: 0)
        let mtime: Int64 = 1_700_000_000_987_654_321
        let recorded = try c.fileSystem.commitNew(file, to: path("Documents/Saved/copy.txt"), permissions: Permissions(mode: 0o755, kind: .file), mtimeNs: mtime)
        #expect(c.read("Documents/Saved/copy.txt") == Array("kept".utf8))
        let st = try #require(c.lstatOf("Documents/Saved/copy.txt"))
        #expect(st.st_mode & 0o100 != 0)
        #expect(Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec) == mtime)
        #expect(recorded.inode == UInt64(st.st_ino))
        #expect(try tempNames(c).isEmpty)
    }

    @Test func refusesAnExistingFileOrFolderAndLeavesItAlone() throws {
        let c = try ContainerFixture()
        try c.write("Documents/a.txt", "mine")
        try FileManager.default.createDirectory(atPath: c.layout.root + "/Documents/folder", withIntermediateDirectories: true)
        for target in ["Documents/a.txt", "Documents/folder"] {
            let file = try c.fileSystem.makeTempFile()
            try file.write(Array("theirs".utf8), at: 0)
            #expect { try c.fileSystem.commitNew(file, to: path(target), permissions: .defaults(for: .file), mtimeNs: 0) } throws: {
                ($0 as? FileSystemError)?.code == .alreadyExists
            }
        }
        #expect(c.read("Documents/a.txt") == Array("mine".utf8))
        #expect(try tempNames(c).isEmpty)
    }

    @Test func refusesAParentThatLinksOutside() throws {
        let c = try ContainerFixture()
        let outside = try TempDirectory(prefix: "ubiq-outside")
        try c.symlink("Documents/evil", to: outside.path)
        let file = try c.fileSystem.makeTempFile()
        try file.write(Array("payload".utf8), at: 0)
        #expect { try c.fileSystem.commitNew(file, to: path("Documents/evil/x.txt"), permissions: .defaults(for: .file), mtimeNs: 0) } throws: {
            ($0 as? FileSystemError)?.code == .escapesContainer
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        #expect(try tempNames(c).isEmpty)
    }
}
