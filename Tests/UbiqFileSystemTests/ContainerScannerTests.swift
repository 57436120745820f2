import Foundation
import Testing
import UbiqChunking
@testable import UbiqFileSystem
import UbiqModel
import UbiqTestSupport

@Suite struct ContainerScannerTests {
    func entries(_ result: ScanResult) -> [RelativePath: LocalEntry] {
        Dictionary(uniqueKeysWithValues: result.changed.map { ($0.path, $0) })
    }

    func baseline(_ result: ScanResult) -> [RelativePath: FileStat] {
        Dictionary(uniqueKeysWithValues: result.changed.map { ($0.path, $0.stat) })
    }

    @Test func findsFilesFoldersLinksAndExecutableBit() throws {
        let c = try ContainerFixture()
        let big = testBytes(300_000)
        try c.write("Documents/big.bin", big)
        try c.write("Documents/empty.txt", [])
        try c.write("Documents/run.sh", "#!/bin/sh\n")
        chmod(c.absolute("Documents/run.sh"), 0o755)
        try c.mkdir("Documents/sub/emptydir")
        try c.symlink("Documents/sub/link", to: "../big.bin")
        try c.write("data.json", "{}")

        let result = try c.scanner.scan(baseline: EmptyScanBaseline())
        let found = entries(result)
        #expect(Set(found.keys) == result.seen)
        #expect(result.seen == Set(["Documents", "Documents/big.bin", "Documents/empty.txt", "Documents/run.sh",
                                    "Documents/sub", "Documents/sub/emptydir", "Documents/sub/link", "data.json"].map(path)))
        let bigEntry = try #require(found[path("Documents/big.bin")])
        #expect(bigEntry.kind == .file && bigEntry.size == 300_000 && !bigEntry.executable)
        #expect(bigEntry.chunks == FileChunker().chunks(of: big))
        #expect(found[path("Documents/empty.txt")]?.chunks == [])
        #expect(found[path("Documents/empty.txt")]?.size == 0)
        #expect(found[path("Documents/run.sh")]?.executable == true)
        #expect(found[path("Documents/run.sh")]?.permissions?.description == "0755")
        #expect(found[path("Documents/sub/emptydir")]?.kind == .directory)
        let link = try #require(found[path("Documents/sub/link")])
        #expect(link.kind == .symlink && link.symlinkTarget == "../big.bin" && link.chunks.isEmpty)
        #expect(result.filesHashed == 4)
        #expect(result.failures.isEmpty && result.invalidNames.isEmpty && result.unstable.isEmpty)
        #expect(bigEntry.mtime == bigEntry.stat.mtimeNs && bigEntry.mtime > 1_600_000_000 * 1_000_000_000)
    }

    @Test func changedEntriesAreHandedOnInBatchesAndAFalseAnswerStopsTheWalk() throws {
        let c = try ContainerFixture()
        for folder in 0..<3 {
            for file in 0..<4 { try c.write("Documents/f\(folder)/\(file).txt", "file \(folder) \(file)") }
        }
        let whole = try c.scanner.scan(baseline: EmptyScanBaseline())
        var scanner = c.scanner
        scanner.batchSize = 5
        var batches: [[LocalEntry]] = []
        let batched = try scanner.scan(baseline: EmptyScanBaseline(), changes: { batches.append($0); return true })
        // 16 entries (Documents, 3 folders, 12 files): three batches of 5 and one left over.
        #expect(batches.map(\.count) == [5, 5, 5])
        #expect(batched.changed.count == 1)
        #expect(Dictionary(uniqueKeysWithValues: (batches.joined() + batched.changed).map { ($0.path, $0) }) == entries(whole))
        #expect(batched.seen == whole.seen)
        // A folder comes in a batch no later than what is inside it.
        let order = (batches.joined() + batched.changed).map(\.path)
        for (position, path) in order.enumerated() {
            if let parent = path.parent { #expect(order.firstIndex(of: parent).map { $0 < position } ?? false) }
        }

        var handed = 0
        let stopped = try scanner.scan(baseline: EmptyScanBaseline(), changes: { handed += $0.count; return false })
        #expect(handed == 5)
        #expect(stopped.seen.count < whole.seen.count)
    }

    /// A path the baseline does not know (new to the index) is counted but not kept in
    /// `seen`: a first index of a large tree holds no set of every path it found.
    @Test func seenHoldsKnownPathsAndEveryPathIsCounted() throws {
        struct Knowing: ScanBaseline {
            let known: Set<RelativePath>
            func stat(of path: RelativePath) -> FileStat? { nil }
            func known(_ path: RelativePath) -> RelativePath? { known.contains(path) ? path : nil }
        }
        let c = try ContainerFixture()
        for file in 0..<4 { try c.write("Documents/f/\(file).txt", "file \(file)") }
        let known: Set = [path("Documents/f/1.txt"), path("Documents/gone.txt")]
        let result = try c.scanner.scan(baseline: Knowing(known: known))
        #expect(result.seen == [path("Documents/f/1.txt")])
        #expect(result.entries == 6)
        #expect(result.changed.count == 6)
        #expect(try c.scanner.scan(baseline: EmptyScanBaseline()).seen.count == 6)
    }

    @Test func skipsAgentFolderNosyncAndSpecialFiles() throws {
        let c = try ContainerFixture()
        try c.write(".ubiq/tmp/t-1", "partial")
        try c.write("Documents/cache.nosync/a.txt", "x")
        try c.write("Documents/deep/build.nosync/b.txt", "x")
        try c.write("Documents/file.nosync", "x")
        try c.write("Documents/keep.txt", "keep")
        #expect(mkfifo(c.absolute("Documents/fifo"), 0o600) == 0)

        let result = try c.scanner.scan(baseline: EmptyScanBaseline())
        #expect(result.seen == Set(["Documents", "Documents/deep", "Documents/keep.txt"].map(path)))
    }

    @Test func unchangedFilesAreNotRehashed() throws {
        let c = try ContainerFixture()
        for i in 0..<5 { try c.write("Documents/f\(i).txt", testBytes(1000 + i, seed: UInt8(i))) }
        let first = try c.scanner.scan(baseline: EmptyScanBaseline())
        #expect(first.filesHashed == 5)

        let second = try c.scanner.scan(baseline: baseline(first))
        #expect(second.filesHashed == 0 && second.bytesHashed == 0)
        #expect(second.changed.isEmpty)
        #expect(second.seen == first.seen)
    }

    @Test func changedContentIsRehashed() throws {
        let c = try ContainerFixture()
        try c.write("Documents/a.txt", "hello")
        try c.write("Documents/b.txt", "world")
        let first = try c.scanner.scan(baseline: EmptyScanBaseline())
        try c.write("Documents/a.txt", "hello, again")

        let second = try c.scanner.scan(baseline: baseline(first))
        #expect(second.filesHashed == 1)
        let changed = try #require(entries(second)[path("Documents/a.txt")])
        #expect(changed.size == 12 && changed.chunks.map(\.hash) == [ChunkHasher.hash(Array("hello, again".utf8))])
    }

    /// Same size and a restored mtime still show up: the ctime moved.
    @Test func sameSizeAndMtimeButNewContentIsRehashed() throws {
        let c = try ContainerFixture()
        try c.write("Documents/a.txt", "aaaa")
        let first = try c.scanner.scan(baseline: EmptyScanBaseline())
        let old = try #require(entries(first)[path("Documents/a.txt")])
        try c.write("Documents/a.txt", "bbbb")
        let t = timespec(tv_sec: Int(old.stat.mtimeNs / 1_000_000_000), tv_nsec: Int(old.stat.mtimeNs % 1_000_000_000))
        #expect(utimensat(AT_FDCWD, c.absolute("Documents/a.txt"), [t, t], 0) == 0)

        let second = try c.scanner.scan(baseline: baseline(first))
        #expect(entries(second)[path("Documents/a.txt")]?.chunks.first?.hash == ChunkHasher.hash(Array("bbbb".utf8)))
    }

    @Test func linkToOutsideIsReportedNotFollowed() throws {
        let c = try ContainerFixture()
        let outside = try TempDirectoryHolder()
        try Data("secret".utf8).write(to: URL(fileURLWithPath: outside.path + "/secret.txt"))
        try c.mkdir("Documents")
        try c.symlink("Documents/out", to: outside.path)
        try c.symlink("Documents/up", to: "../../..")

        let result = try c.scanner.scan(baseline: EmptyScanBaseline())
        let found = entries(result)
        #expect(found[path("Documents/out")]?.symlinkTarget == outside.path)
        #expect(found[path("Documents/up")]?.symlinkTarget == "../../..")
        #expect(!result.seen.contains(path("Documents/out/secret.txt")))
        #expect(result.filesHashed == 0)
        #expect(!SymlinkPolicy.isContained(linkPath: path("Documents/out"), target: outside.path))
        #expect(!SymlinkPolicy.isContained(linkPath: path("Documents/up"), target: "../../.."))
    }

    @Test func scansASubtreeOrOnePath() throws {
        let c = try ContainerFixture()
        try c.write("Documents/a/one.txt", "1")
        try c.write("Documents/a/b/two.txt", "2")
        try c.write("Documents/other.txt", "3")

        let subtree = try c.scanner.scan(under: path("Documents/a"), baseline: EmptyScanBaseline())
        #expect(subtree.seen == Set(["Documents/a", "Documents/a/one.txt", "Documents/a/b", "Documents/a/b/two.txt"].map(path)))

        let single = try c.scanner.scanSingle(path("Documents/a"), baseline: EmptyScanBaseline())
        #expect(single.seen == [path("Documents/a")])

        let file = try c.scanner.scan(under: path("Documents/a/b/two.txt"), baseline: EmptyScanBaseline())
        #expect(file.changed.map(\.path) == [path("Documents/a/b/two.txt")])

        let missing = try c.scanner.scan(under: path("Documents/gone/x"), baseline: EmptyScanBaseline())
        #expect(missing.seen.isEmpty && missing.failures.isEmpty)

        try c.symlink("Documents/linked", to: "a")
        let throughLink = try c.scanner.scan(under: path("Documents/linked/one.txt"), baseline: EmptyScanBaseline())
        #expect(throughLink.seen.isEmpty)
    }

    @Test func invalidNamesAreSkippedAndReported() throws {
        let c = try ContainerFixture()
        try c.mkdir("Documents")
        var name = Array((c.absolute("Documents") + "/bad-").utf8CString.dropLast())
        name.append(CChar(bitPattern: 0xFF))
        name.append(0)
        let fd = open(name, O_CREAT | O_WRONLY, 0o644)
        #expect(fd >= 0)
        close(fd)
        try c.write("Documents/good.txt", "ok")

        let result = try c.scanner.scan(baseline: EmptyScanBaseline())
        #expect(result.invalidNames.count == 1)
        #expect(result.invalidNames.first?.hasPrefix("Documents/bad-") == true)
        #expect(result.seen == Set(["Documents", "Documents/good.txt"].map(path)))
    }

    @Test func fileChangedWhileHashedIsUnstable() throws {
        let c = try ContainerFixture()
        try c.write("Documents/busy.txt", "first")
        try c.write("Documents/calm.txt", "calm")
        let file = c.absolute("Documents/busy.txt")
        var scanner = c.scanner
        scanner.afterReading = { path in
            guard path.rawValue == "Documents/busy.txt" else { return }
            let fd = open(file, O_WRONLY | O_APPEND)
            _ = write(fd, "more", 4)
            close(fd)
        }
        let result = try scanner.scan(baseline: EmptyScanBaseline())
        #expect(result.unstable == [path("Documents/busy.txt")])
        #expect(result.seen.contains(path("Documents/busy.txt")))
        #expect(entries(result)[path("Documents/busy.txt")] == nil)
        #expect(entries(result)[path("Documents/calm.txt")] != nil)
    }

    @Test func missingRootThrows() throws {
        let c = try ContainerFixture()
        let scanner = ContainerScanner(layout: ContainerLayout(root: c.layout.root + "/nope"), logger: c.logger)
        do {
            _ = try scanner.scan(baseline: EmptyScanBaseline())
            Issue.record("scanned a missing root")
        } catch {
            #expect(error.code == .notFound)
        }
    }

    @Test func permissionsAreScannedWithoutSetuid() throws {
        let c = try ContainerFixture()
        try c.write("Documents/id_ed25519", "secret")
        chmod(c.absolute("Documents/id_ed25519"), 0o4600)
        try c.mkdir("Documents/shared")
        chmod(c.absolute("Documents/shared"), 0o2770)
        let found = entries(try c.scanner.scan(baseline: EmptyScanBaseline()))
        #expect(found[path("Documents/id_ed25519")]?.permissions?.description == "0600")
        #expect(found[path("Documents/shared")]?.permissions?.description == "2770")
        // ignore_permissions: entries carry none, so the synced ones stay.
        var ignoring = c.scanner
        ignoring.readsPermissions = false
        #expect(try ignoring.scan(baseline: EmptyScanBaseline()).changed.allSatisfy { $0.permissions == nil })
    }

    /// Scanned with an ordinary user's rights, since CI runs as root, which reads everything.
    @Test func unreadableFolderIsAFailureNotADeletion() throws {
        let c = try ContainerFixture()
        try c.write("Documents/locked/inside.txt", "x")
        OrdinaryUser.open(c.absolute("Documents"), upTo: c.directory.path)
        chmod(c.absolute("Documents/locked"), 0)
        defer { chmod(c.absolute("Documents/locked"), 0o755) }
        let scanner = c.scanner
        let result = try OrdinaryUser.run { try scanner.scan(baseline: EmptyScanBaseline()) }
        #expect(result.failures.map(\.path) == [path("Documents/locked")])
        #expect(result.seen.contains(path("Documents/locked")))
    }
}

/// A second temp folder standing for "outside the container".
final class TempDirectoryHolder {
    let directory: TempDirectory
    var path: String { directory.path }
    init() throws { directory = try TempDirectory(prefix: "ubiq-outside") }
}
