import Foundation
import Testing
import UbiqFileSystem
import UbiqModel
import UbiqTestSupport

@Suite struct SafeFileSystemTests {
    func tempNames(_ c: ContainerFixture) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: c.layout.temporaryFolder)
    }

    /// Exactly the permissions given, whatever the umask: a private file stays private, and a
    /// group's shared folder keeps its setgid bit.
    @Test func commitsAndFoldersGetExactlyThePermissionsGiven() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        let key = try fs.makeTempFile()
        try key.write(Array("secret".utf8), at: 0)
        try fs.commit(key, to: path("Documents/id_ed25519"), permissions: Permissions(mode: 0o600, kind: .file), mtimeNs: 1)
        let open = try fs.makeTempFile()
        try fs.commit(open, to: path("Documents/open.txt"), permissions: Permissions(mode: 0o666, kind: .file), mtimeNs: 1)
        #expect(try #require(c.lstatOf("Documents/id_ed25519")).st_mode & 0o7777 == 0o600)
        #expect(try #require(c.lstatOf("Documents/open.txt")).st_mode & 0o7777 == 0o666)
        try fs.makeDirectory(path("Documents/shared"), permissions: Permissions(mode: 0o2770, kind: .directory))
        #expect(try #require(c.lstatOf("Documents/shared")).st_mode & 0o7777 == 0o2770)
        // An existing folder takes the permissions too.
        try fs.makeDirectory(path("Documents/shared"), permissions: Permissions(mode: 0o700, kind: .directory))
        #expect(try #require(c.lstatOf("Documents/shared")).st_mode & 0o7777 == 0o700)
    }

    /// A version with the same bytes: the same inode gets the new permissions and mtime, and
    /// only while it is the file the engine last saw.
    @Test func metadataIsSetInPlaceOnlyOnTheFileLastSeen() throws {
        let c = try ContainerFixture()
        try c.write("Documents/big.bin", [UInt8](repeating: 1, count: 1 << 20))
        let seen = try #require(c.fileSystem.fileStat(of: path("Documents/big.bin")))
        let stat = try c.fileSystem.setMetadata(of: path("Documents/big.bin"), permissions: Permissions(mode: 0o600, kind: .file),
                                                mtimeNs: 1_700_000_000_000_000_001, expected: seen)
        let st = try #require(c.lstatOf("Documents/big.bin"))
        #expect(stat == c.fileSystem.fileStat(of: path("Documents/big.bin")) && stat.inode == seen.inode && st.st_mode & 0o7777 == 0o600 && stat.mtimeNs == 1_700_000_000_000_000_001)
        // A client's write since (the fixture's write leaves 0644): refused, nothing set.
        try c.write("Documents/big.bin", [2])
        let mode = Permissions(mode: 0o640, kind: .file)
        #expect { _ = try c.fileSystem.setMetadata(of: path("Documents/big.bin"), permissions: mode, mtimeNs: 1, expected: stat) }
            throws: { ($0 as? FileSystemError)?.code == .alreadyExists }
        #expect(try #require(c.lstatOf("Documents/big.bin")).st_mode & 0o7777 == 0o644 && c.read("Documents/big.bin") == [2])
    }

    /// `ignore_permissions`: nothing asked is applied. A new file gets 0644, a replacement keeps
    /// the mode of the file it replaces, a change in place and a folder keep theirs.
    @Test func ignoringPermissionsKeepsWhatIsOnDisk() throws {
        let c = try ContainerFixture()
        var fs = c.fileSystem
        fs.ignoresPermissions = true
        let strict = Permissions(mode: 0o600, kind: .file)
        let new = try fs.makeTempFile()
        try fs.commit(new, to: path("Documents/new.txt"), permissions: strict, mtimeNs: 1)
        #expect(try #require(c.lstatOf("Documents/new.txt")).st_mode & 0o7777 == 0o644)
        try c.write("Documents/script.sh", Array("old".utf8), mode: 0o750)
        let replacement = try fs.makeTempFile()
        try fs.commit(replacement, to: path("Documents/script.sh"), permissions: strict, mtimeNs: 1)
        #expect(try #require(c.lstatOf("Documents/script.sh")).st_mode & 0o7777 == 0o750)
        let seen = try #require(fs.fileStat(of: path("Documents/script.sh")))
        _ = try fs.setMetadata(of: path("Documents/script.sh"), permissions: strict, mtimeNs: 2, expected: seen)
        #expect(try #require(c.lstatOf("Documents/script.sh")).st_mode & 0o7777 == 0o750)
        try c.mkdir("Documents/folder")
        chmod(c.absolute("Documents/folder"), 0o711)
        try fs.makeDirectory(path("Documents/folder"), permissions: Permissions(mode: 0o700, kind: .directory))
        #expect(try #require(c.lstatOf("Documents/folder")).st_mode & 0o7777 == 0o711)
    }

    /// A partial file is found again by its key after it was closed (and after a restart),
    /// is held by one writer at a time, and goes only when nobody holds it.
    @Test func aPartialFileOutlivesItsWriterAndIsHeldByOneAtATime() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        let key = String(repeating: "ab", count: 32)
        let (first, resumedFirst) = try #require(try fs.openPartialFile(key: key))
        #expect(!resumedFirst)
        try first.write(Array("half of it".utf8), at: 0)
        #expect(try fs.openPartialFile(key: key) == nil, "a second writer got the file another holds")
        fs.closeAndKeep(first)
        // A restart keeps partial files and removes every other temp file.
        let other = try fs.makeTempFile()
        try fs.removeTemporaryFiles(keepingPartials: true)
        #expect(try tempNames(c) == ["p-" + key], "\(other.name) was kept")
        let (again, resumed) = try #require(try fs.openPartialFile(key: key))
        let start = try again.read(4, at: 0)
        #expect(resumed && start == Data("half".utf8))
        fs.removePartialFiles()
        #expect(try tempNames(c) == ["p-" + key], "a held partial file was removed")
        fs.closeAndKeep(again)
        fs.removePartialFiles()
        #expect(try tempNames(c).isEmpty)
        #expect { _ = try fs.openPartialFile(key: "../x") } throws: { ($0 as? FileSystemError)?.code == .invalidName }
    }

    @Test func commitPutsTheFileInPlaceWithModeAndMtime() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        let file = try fs.makeTempFile()
        #expect(file.path.hasPrefix(c.layout.temporaryFolder + "/"))
        try file.write(Array("hello ".utf8), at: 0)
        try file.write(Array("world".utf8), at: 6)
        let mtime: Int64 = 1_700_000_000_123_456_789
        let recorded = try fs.commit(file, to: path("Documents/new/deep/a.txt"), permissions: Permissions(mode: 0o755, kind: .file), mtimeNs: mtime)

        #expect(c.read("Documents/new/deep/a.txt") == Array("hello world".utf8))
        let st = try #require(c.lstatOf("Documents/new/deep/a.txt"))
        #expect(st.st_mode & 0o100 != 0)
        #expect(Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec) == mtime)
        #expect(try tempNames(c).isEmpty)

        // What commit reports is what the scanner finds: no rehash of our own write.
        let baseline = [path("Documents/new/deep/a.txt"): recorded]
        let scan = try c.scanner.scan(under: path("Documents/new/deep/a.txt"), baseline: baseline)
        #expect(scan.filesHashed == 0 && scan.changed.isEmpty)
    }

    /// Space set aside before a large file is assembled: allocated at once, reads as zeros
    /// until written, and the file committed is exactly what was written.
    @Test func reservedSpaceIsAllocatedAndFilledByTheWrites() throws {
        let c = try ContainerFixture()
        let file = try c.fileSystem.makeTempFile()
        try file.reserve(4 << 20)
        var st = stat()
        #expect(fstat(file.fd, &st) == 0)
        #expect(st.st_size == 4 << 20 && st.st_blocks * 512 >= 4 << 20)
        let bytes = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try file.write(bytes, at: 0)
        try c.fileSystem.commit(file, to: path("Documents/reserved.bin"), permissions: .defaults(for: .file), mtimeNs: 1)
        #expect(c.read("Documents/reserved.bin") == bytes)
    }

    /// A large staged file drops its pages from memory as it is written (runs written in
    /// order, and a kernel copy in pieces); what is committed is still every byte written.
    @Test func aLargeStagedFileWrittenAndCopiedInPiecesIsCommittedWhole() throws {
        let c = try ContainerFixture()
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        let source = Array(random.readData(ofLength: (21 << 20) + 5003))
        try c.write("Documents/source.bin", source)
        let file = try c.fileSystem.makeTempFile()
        var expected: [UInt8] = []
        for run in 0..<20 {
            let bytes = Array(random.readData(ofLength: 1 << 20))
            try file.write(bytes, at: UInt64(run) << 20)
            expected += bytes
        }
        let fd = open(c.absolute("Documents/source.bin"), O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        try file.copy(from: fd, at: 3, length: UInt64(source.count - 3), to: 20 << 20)
        expected += source[3...]
        try c.fileSystem.commit(file, to: path("Documents/staged.bin"), permissions: .defaults(for: .file), mtimeNs: 1)
        #expect(c.read("Documents/staged.bin") == expected)
    }

    /// A large reserved file writes the aligned middle of each run past the page cache, the
    /// rest through it: runs at odd offsets, out of order, with a kernel copy between them,
    /// still commit to exactly the bytes written.
    @Test func aLargeReservedFileWrittenDirectlyAtOddOffsetsIsCommittedWhole() throws {
        let c = try ContainerFixture()
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        let size = (24 << 20) + 777
        let expected = Array(random.readData(ofLength: size))
        let copied = 5_000_001..<5_400_003
        try c.write("Documents/source.bin", Array(expected[copied]))
        let file = try c.fileSystem.makeTempFile()
        try file.reserve(UInt64(size))
        #expect(file.writesDirectly, "ext4 and most file systems take O_DIRECT; where this fails, the test's file system does not")
        // Runs of odd lengths between odd cut points, written back to front.
        var cuts = [0, 100, 4096, 4097, 70_000, 1_100_003, copied.lowerBound, copied.upperBound]
        cuts += stride(from: 6 << 20, to: size, by: 1_048_579) + [size]
        for (start, end) in zip(cuts, cuts.dropFirst()).reversed() where start != copied.lowerBound {
            try file.write(Array(expected[start..<end]), at: UInt64(start))
        }
        let fd = open(c.absolute("Documents/source.bin"), O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        try file.copy(from: fd, at: 0, length: UInt64(copied.count), to: UInt64(copied.lowerBound))
        try c.fileSystem.commit(file, to: path("Documents/direct.bin"), permissions: .defaults(for: .file), mtimeNs: 1)
        let committed = try #require(c.read("Documents/direct.bin"))
        #expect(committed.count == expected.count)
        #expect(ByteComparison.firstDifference(committed, expected) == nil, "first byte that differs")
    }

    @Test func commitReplacesAnExistingFile() throws {
        let c = try ContainerFixture()
        try c.write("Documents/a.txt", "old")
        let file = try c.fileSystem.makeTempFile()
        try file.write(Array("new".utf8), at: 0)
        try c.fileSystem.commit(file, to: path("Documents/a.txt"), permissions: .defaults(for: .file), mtimeNs: 1_000_000_000)
        #expect(c.read("Documents/a.txt") == Array("new".utf8))
        #expect(c.lstatOf("Documents/a.txt")!.st_mode & 0o111 == 0)
    }

    /// A large file replaced in a batch stays linked in `.ubiq/tmp/` (its blocks are not
    /// freed during the rename) until it is removed; the new content is in place at once.
    @Test func aReplacedLargeFileIsRemovedAfterTheCommit() throws {
        let c = try ContainerFixture()
        try c.write("Documents/big.bin", "old")
        let old = try FileHandle(forWritingTo: URL(fileURLWithPath: c.layout.root + "/Documents/big.bin"))
        try old.truncate(atOffset: 40 << 20)
        try old.close()
        let file = try c.fileSystem.makeTempFile()
        try file.write(Array("new".utf8), at: 0)
        let result = c.fileSystem.commit([PendingCommit(file: file, path: path("Documents/big.bin"), permissions: .defaults(for: .file), mtimeNs: 1)])
        #expect(result.failures.isEmpty)
        #expect(c.read("Documents/big.bin") == Array("new".utf8))
        #expect(result.replaced.count == 1)
        #expect(try tempNames(c) == result.replaced)
        c.fileSystem.removeReplaced(result.replaced)
        #expect(try tempNames(c).isEmpty)
    }

    @Test func refusesAParentThatLinksOutside() throws {
        let c = try ContainerFixture()
        let outside = try TempDirectory(prefix: "ubiq-outside")
        try c.symlink("Documents/evil", to: outside.path)
        let fs = c.fileSystem

        let file = try fs.makeTempFile()
        try file.write(Array("payload".utf8), at: 0)
        do {
            try fs.commit(file, to: path("Documents/evil/x.txt"), permissions: .defaults(for: .file), mtimeNs: 0)
            Issue.record("wrote through a symbolic link")
        } catch {
            #expect(error.code == .escapesContainer)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        #expect(try tempNames(c).isEmpty)

        #expect(throws: FileSystemError.self) { try fs.makeDirectory(path("Documents/evil/sub")) }
        #expect(throws: FileSystemError.self) { try fs.makeSymlink(path("Documents/evil/l"), target: "x") }
        #expect(throws: FileSystemError.self) { try fs.openForReading(path("Documents/evil/x.txt")) }
        #expect(throws: FileSystemError.self) { try fs.rename(from: path("Documents/evil/x"), to: path("Documents/y")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    }

    @Test func refusesALinkedParentEvenInside() throws {
        let c = try ContainerFixture()
        try c.mkdir("Documents/real")
        try c.symlink("Documents/alias", to: "real")
        let file = try c.fileSystem.makeTempFile()
        do {
            try c.fileSystem.commit(file, to: path("Documents/alias/x.txt"), permissions: .defaults(for: .file), mtimeNs: 0)
            Issue.record("wrote through a symbolic link")
        } catch {
            #expect(error.code == .escapesContainer)
        }
        #expect(!c.exists("Documents/real/x.txt"))
    }

    @Test func batchCommitPlacesEveryFile() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        var batch: [PendingCommit] = []
        for i in 0..<20 {
            let file = try fs.makeTempFile()
            try file.write(Array("file \(i)".utf8), at: 0)
            batch.append(PendingCommit(file: file, path: path("Documents/batch/\(i % 3)/f\(i).txt"), permissions: .defaults(for: .file), mtimeNs: 5_000_000_000))
        }
        let bad = try fs.makeTempFile()
        try c.mkdir("Documents/isdir/child")
        batch.append(PendingCommit(file: bad, path: path("Documents/isdir"), permissions: .defaults(for: .file), mtimeNs: 0))

        let result = fs.commit(batch)
        #expect(Array(result.failures.keys) == [path("Documents/isdir")])
        #expect(result.committed.count == 20)
        for i in 0..<20 {
            #expect(c.read("Documents/batch/\(i % 3)/f\(i).txt") == Array("file \(i)".utf8))
        }
        #expect(try tempNames(c).isEmpty)
    }

    @Test func discardRemovesTheTempFile() throws {
        let c = try ContainerFixture()
        let file = try c.fileSystem.makeTempFile()
        #expect(try tempNames(c) == [file.name])
        c.fileSystem.discard(file)
        #expect(try tempNames(c).isEmpty)
        _ = try c.fileSystem.makeTempFile()
        try c.fileSystem.removeTemporaryFiles()
        #expect(try tempNames(c).isEmpty)
    }

    @Test func makeDirectoryAndSymlink() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        try fs.makeDirectory(path("Documents/x/y"), mtimeNs: 2_000_000_000)
        try fs.makeDirectory(path("Documents/x/y"))
        #expect(c.lstatOf("Documents/x/y").map { $0.st_mode & S_IFMT } == S_IFDIR)

        try c.write("Documents/x/file", "f")
        do {
            try fs.makeDirectory(path("Documents/x/file"))
            Issue.record("made a folder over a file")
        } catch {
            #expect(error.code == .alreadyExists)
        }

        try fs.makeSymlink(path("Documents/x/link"), target: "../elsewhere", mtimeNs: 3_000_000_000)
        try fs.makeSymlink(path("Documents/x/file"), target: "y")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: c.absolute("Documents/x/link")) == "../elsewhere")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: c.absolute("Documents/x/file")) == "y")
        #expect(c.lstatOf("Documents/x/link")!.st_mtim.tv_sec == 3)
        #expect(try tempNames(c).isEmpty)
    }

    @Test func removeHandlesEachKind() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        try c.write("Documents/f.txt", "x")
        try c.symlink("Documents/l", to: "/nowhere")
        try c.mkdir("Documents/empty")
        try c.write("Documents/ignored/cache.nosync/deep/x", "cached")
        #expect(mkfifo(c.absolute("Documents/ignored/pipe"), 0o600) == 0)
        try c.write("Documents/full/keep.txt", "keep")

        for name in ["f.txt", "l", "empty", "ignored"] {
            try fs.remove(path("Documents/" + name))
            #expect(!c.exists("Documents/" + name))
        }
        do {
            try fs.remove(path("Documents/full"))
            Issue.record("removed a folder with synced content")
        } catch {
            #expect(error.code == .directoryNotEmpty)
        }
        #expect(c.read("Documents/full/keep.txt") == Array("keep".utf8))
        do {
            try fs.remove(path("Documents/none"))
            Issue.record("removed nothing without an error")
        } catch {
            #expect(error.code == .notFound)
        }
    }

    @Test func renameDoesNotReplaceUnlessAsked() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        try c.write("Documents/a", "a")
        try c.write("Documents/b", "b")
        do {
            try fs.rename(from: path("Documents/a"), to: path("Documents/b"))
            Issue.record("replaced an existing file")
        } catch {
            #expect(error.code == .alreadyExists)
        }
        try fs.rename(from: path("Documents/a"), to: path("Documents/moved/a2"))
        #expect(c.read("Documents/moved/a2") == Array("a".utf8) && !c.exists("Documents/a"))
        try fs.rename(from: path("Documents/moved/a2"), to: path("Documents/b"), replacing: true)
        #expect(c.read("Documents/b") == Array("a".utf8))
    }

    @Test func conflictVersionsRoundTrip() throws {
        let c = try ContainerFixture()
        let fs = c.fileSystem
        let doc = path("Documents/report.txt")
        try c.write(doc.rawValue, "mine")
        try fs.moveToVersions(doc, id: "ABCDEFGH-3")
        #expect(!c.exists(doc.rawValue))

        let stored = try fs.versionPath(of: doc, id: "ABCDEFGH-3")
        #expect(stored.hasPrefix(c.layout.versionsFolder + "/" + SafeFileSystem.versionPrefix(of: doc)))
        let fd = try fs.openVersion(of: doc, id: "ABCDEFGH-3")
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = read(fd, &buffer, 16)
        close(fd)
        #expect(Array(buffer[..<n]) == Array("mine".utf8))

        let remote = try fs.makeTempFile()
        try remote.write(Array("theirs".utf8), at: 0)
        try fs.commitToVersions(remote, path: doc, id: "ZZZZ-9", permissions: .defaults(for: .file), mtimeNs: 7_000_000_000)
        try fs.restoreVersion(of: doc, id: "ZZZZ-9")
        #expect(c.read(doc.rawValue) == Array("theirs".utf8))

        try fs.removeVersion(of: doc, id: "ABCDEFGH-3")
        #expect(throws: FileSystemError.self) { try fs.openVersion(of: doc, id: "ABCDEFGH-3") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: c.layout.versionsFolder).isEmpty)
    }

    @Test func versionNamesAreOpaqueAndDistinct() throws {
        let a = try SafeFileSystem.versionName(of: path("Documents/a"), id: "X-1")
        let b = try SafeFileSystem.versionName(of: path("Documents/a"), id: "X-2")
        let c = try SafeFileSystem.versionName(of: path("Documents/b"), id: "X-1")
        let evil = try SafeFileSystem.versionName(of: path("Documents/a"), id: "../../etc/passwd")
        #expect(Set([a, b, c, evil]).count == 4)
        #expect(!evil.contains("/") && !evil.contains("."))
        #expect(a == (try SafeFileSystem.versionName(of: path("Documents/a"), id: "X-1")))
        do {
            _ = try SafeFileSystem.versionName(of: path("Documents/a"), id: String(repeating: "x", count: 65))
            Issue.record("accepted an over-long version id")
        } catch {
            #expect(error.code == .invalidName)
        }
    }
}
