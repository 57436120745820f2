import Foundation
import Synchronization
import Testing
import UbiqChunking
import UbiqModel
import UbiqSimulation
import UbiqSync
import UbiqTestSupport

/// The simulator's in-memory disk against the real disk's contracts: what a scan reports,
/// how commits land, what a crash keeps, and that equal runs give equal results.
@Suite struct SimulatedDiskTests {
    /// A wall clock that moves 1 ms at every reading.
    final class Ticker: Sendable {
        private let ns = Mutex<Int64>(1_700_000_000_000_000_000)
        func now() -> Int64 { ns.withLock { $0 += 1_000_000; return $0 } }
    }

    func makeDisk(packages: PackageRules = .none) throws -> SimulatedDisk {
        let ticker = Ticker()
        let disk = SimulatedDisk(packages: packages) { ticker.now() }
        try disk.prepare()
        return disk
    }

    func p(_ raw: String) -> RelativePath { try! RelativePath(raw) }
    func b(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The code of the `DiskError` thrown, nil where nothing (or something else) was.
    func code(_ body: () throws -> Void) -> DiskError.Code? {
        do { try body() } catch let error as DiskError { return error.code } catch { return nil }
        return nil
    }

    func staged(_ disk: SimulatedDisk, _ text: String) throws -> any StagedFile {
        let file = try disk.stage()
        try file.write(b(text), at: 0)
        return file
    }

    func scan(_ disk: SimulatedDisk, under root: String? = nil, baseline: [RelativePath: FileStat] = [:],
              packages: [RelativePath: PackageContent] = [:]) throws -> ScanOutcome {
        var batches: [LocalEntry] = []
        var outcome = try disk.scan(under: root.map(p), ignoring: .none, baseline: { baseline[$0] }, package: { packages[$0] },
                                    known: { $0 }, knownCount: baseline.count, changes: { batches += $0; return true })
        outcome.changed = batches + outcome.changed
        return outcome
    }

    func entries(_ outcome: ScanOutcome) -> [RelativePath: LocalEntry] {
        Dictionary(uniqueKeysWithValues: outcome.changed.map { ($0.path, $0) })
    }

    func baseline(_ outcome: ScanOutcome) -> [RelativePath: FileStat] {
        entries(outcome).mapValues(\.stat)
    }

    @Test func scanReportsNewChangedAndDeletedPathsAndSkipsUnchangedOnes() throws {
        let disk = try makeDisk()
        try disk.clientMakeFolder(p("Documents/sub"))
        try disk.clientWrite(p("Documents/a.txt"), b("alpha"))
        try disk.clientWrite(p("Documents/sub/b.txt"), b("beta"))
        try disk.clientWrite(p("Documents/run.sh"), b("#!/bin/sh\n"))
        try disk.clientSetPermissions(p("Documents/run.sh"), Permissions(mode: 0o700, kind: .file))
        try disk.clientMakeSymlink(p("Documents/link"), target: "a.txt")
        try disk.clientMakeFolder(p("Documents/cache.nosync"))
        try disk.clientWrite(p("Documents/cache.nosync/x"), b("x"))
        try disk.clientWrite(p("Documents/file.nosync"), b("x"))

        let first = try scan(disk)
        let all = Set(["Documents", "Documents/a.txt", "Documents/sub", "Documents/sub/b.txt", "Documents/run.sh", "Documents/link"].map(p))
        #expect(first.seen == all)
        #expect(Set(first.changed.map(\.path)) == all)
        #expect(first.filesHashed == 3)
        let found = entries(first)
        #expect(found[p("Documents/run.sh")]?.permissions?.description == "0700" && found[p("Documents/a.txt")]?.permissions?.description == "0644")
        #expect(found[p("Documents/link")]?.kind == .symlink && found[p("Documents/link")]?.symlinkTarget == "a.txt")
        #expect(found[p("Documents/sub")]?.kind == .directory)
        #expect(found[p("Documents/a.txt")]?.stat == disk.stat(p("Documents/a.txt")))

        let unchanged = try scan(disk, baseline: baseline(first))
        #expect(unchanged.changed.isEmpty && unchanged.filesHashed == 0 && unchanged.seen == all)

        try disk.clientWrite(p("Documents/a.txt"), b("alpha, again"))
        try disk.clientRemove(p("Documents/sub/b.txt"))
        let later = try scan(disk, baseline: baseline(first))
        #expect(Set(later.changed.map(\.path)) == [p("Documents/a.txt"), p("Documents/sub")])
        #expect(entries(later)[p("Documents/a.txt")]?.chunks.map(\.hash) == [ChunkHasher.hash(b("alpha, again"))])
        #expect(later.seen == all.subtracting([p("Documents/sub/b.txt")]))

        #expect(try scan(disk, under: "Documents/sub").seen == [p("Documents/sub")])
        #expect(try scan(disk, under: "Documents/gone/x").seen.isEmpty)
        #expect(try scan(disk, under: "Documents/link/a.txt").seen.isEmpty)
        #expect(try scan(disk, under: "Documents/cache.nosync").seen.isEmpty)
    }

    @Test func chunkListsAreThoseOfTheRealChunker() throws {
        var state: UInt64 = 7
        let big = (0..<600_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let directory = try TempDirectory()
        defer { directory.close() }
        try Data(big).write(to: URL(fileURLWithPath: directory.appending("big.bin")))
        let real = try FileChunker().chunks(ofFileAt: directory.appending("big.bin")).chunks

        let disk = try makeDisk()
        try disk.clientWrite(p("Documents/big.bin"), big)
        try disk.clientWrite(p("Documents/small.txt"), b("hello"))
        try disk.clientWrite(p("Documents/empty"), [])
        let found = entries(try scan(disk))
        #expect(real.count > 2)
        #expect(found[p("Documents/big.bin")]?.chunks == real)
        #expect(found[p("Documents/big.bin")]?.size == 600_000)
        #expect(found[p("Documents/small.txt")]?.chunks == [ChunkRef(offset: 0, size: 5, hash: ChunkHasher.hash(b("hello")))])
        #expect(found[p("Documents/empty")]?.chunks == [])
    }

    /// As `SafeFileSystem.setMetadata`: in place, and only on the file the engine last saw.
    @Test func metadataIsSetInPlaceOnlyOnTheFileLastSeen() throws {
        let disk = try makeDisk()
        let path = p("Documents/key")
        try disk.clientWrite(path, b("secret"))
        let seen = try #require(disk.stat(path))
        let stat = try disk.setMetadata(of: path, metadata: .init(permissions: Permissions(mode: 0o600, kind: .file), mtime: 77), expected: seen)
        #expect(stat.inode == seen.inode && stat.mtimeNs == 77 && disk.stat(path) == stat)
        #expect(disk.snapshot()[path] == .file(b("secret"), permissions: Permissions(mode: 0o600, kind: .file), mtime: 77))
        try disk.clientAppend(path, b("!"), fsync: true)
        let appended = try #require(disk.stat(path))
        #expect(code { _ = try disk.setMetadata(of: path, metadata: .init(permissions: .defaults(for: .file), mtime: 1), expected: stat) } == .alreadyExists)
        #expect(disk.snapshot()[path] == .file(b("secret!"), permissions: Permissions(mode: 0o600, kind: .file), mtime: appended.mtimeNs))
    }

    @Test func aStagedFileLandsWholeAndCommitNewRefusesATakenPath() throws {
        let disk = try makeDisk()
        let file = try disk.stage()
        try file.reserve([0..<10])
        try file.write(b("world"), at: 5)
        try file.write(b("hello"), at: 0)
        let path = p("Documents/new/deep/f.txt")
        #expect(disk.contents(of: path) == nil && disk.temporaryFiles().count == 1)

        let stat = try disk.commit(file, to: path, metadata: .init(permissions: Permissions(mode: 0o755, kind: .file), mtime: 42), keepReplacedAs: nil)
        #expect(disk.contents(of: path) == b("helloworld"))
        #expect(disk.stat(path) == stat && stat.mtimeNs == 42 && stat.size == 10)
        #expect(disk.snapshot()[p("Documents/new/deep")]?.isFolder == true)
        #expect(disk.snapshot()[path] == .file(b("helloworld"), permissions: Permissions(mode: 0o755, kind: .file), mtime: 42))
        #expect(disk.temporaryFiles().isEmpty)
        #expect(code { _ = try disk.commit(file, to: p("Documents/again"), metadata: .init(permissions: .defaults(for: .file), mtime: 1), keepReplacedAs: nil) } == .io)

        #expect(code { _ = try disk.commitNew(try staged(disk, "other"), to: path, metadata: .init(permissions: .defaults(for: .file), mtime: 1)) } == .alreadyExists)
        #expect(disk.contents(of: path) == b("helloworld") && disk.temporaryFiles().isEmpty)
        _ = try disk.commitNew(try staged(disk, "fresh"), to: p("Documents/fresh.txt"), metadata: .init(permissions: .defaults(for: .file), mtime: 1))
        #expect(disk.contents(of: p("Documents/fresh.txt")) == b("fresh"))

        #expect(code { _ = try disk.commit(try staged(disk, "x"), to: p("Documents/new"), metadata: .init(permissions: .defaults(for: .file), mtime: 1), keepReplacedAs: nil) } == .io)
        #expect(code { _ = try disk.commit(try staged(disk, "x"), to: p("Documents/fresh.txt/x"), metadata: .init(permissions: .defaults(for: .file), mtime: 1), keepReplacedAs: nil) } == .io)
        try disk.clientMakeSymlink(p("Documents/out"), target: "/tmp")
        #expect(code { _ = try disk.commit(try staged(disk, "x"), to: p("Documents/out/x"), metadata: .init(permissions: .defaults(for: .file), mtime: 1), keepReplacedAs: nil) } == .escapesContainer)
        #expect(disk.temporaryFiles().isEmpty && disk.snapshot()[p("Documents/new")]?.isFolder == true)

        let one = try staged(disk, "one"), two = try staged(disk, "two")
        let batch = disk.commitAll([
            StagedCommit(staged: one, path: path, metadata: .init(permissions: .defaults(for: .file), mtime: 5)),
            StagedCommit(staged: two, path: p("Documents/two"), metadata: .init(permissions: .defaults(for: .file), mtime: 5)),
        ])
        #expect(try batch[path]?.get() == disk.stat(path) && disk.contents(of: path) == b("one"))
        #expect(try batch[p("Documents/two")]?.get().size == 3)

        #expect(try disk.read(.item(path), offset: 1, size: 2) == Data(b("ne")))
        #expect(code { _ = try disk.read(.item(path), offset: 1, size: 3) } == .io)
        #expect(code { _ = try disk.read(.item(p("Documents/none")), offset: 0, size: 1) } == .notFound)

        let copied = try disk.stage()
        try disk.copy(.item(path), offset: 1, length: 2, into: copied, at: 1)
        #expect(code { try disk.copy(.item(path), offset: 2, length: 2, into: copied, at: 0) } == .io)
        _ = try disk.commit(copied, to: p("Documents/copy"), metadata: .init(permissions: .defaults(for: .file), mtime: 1), keepReplacedAs: nil)
        #expect(disk.contents(of: p("Documents/copy")) == [0] + b("ne"))
    }

    @Test func aCrashDropsUnsyncedWritesAndStagedFilesButKeepsCommitsAndRenames() throws {
        let disk = try makeDisk()
        try disk.clientWrite(p("Documents/a.txt"), b("synced"), fsync: true)
        try disk.clientWrite(p("Documents/a.txt"), b("lost"))
        try disk.clientWrite(p("Documents/new.txt"), b("lost too"))
        try disk.clientWrite(p("Documents/log"), b("kept"), fsync: true)
        try disk.clientAppend(p("Documents/log"), b(", lost"))
        try disk.clientWrite(p("Documents/r.txt"), b("renamed"), fsync: true)
        try disk.clientRename(from: p("Documents/r.txt"), to: p("Documents/moved.txt"))
        try disk.clientSaveAtomically(p("Documents/saved.txt"), b("saved"))
        _ = try disk.commit(try staged(disk, "committed"), to: p("Documents/c.txt"), metadata: .init(permissions: .defaults(for: .file), mtime: 3), keepReplacedAs: nil)
        let pending = try staged(disk, "pending")
        let before = try #require(disk.stat(p("Documents/a.txt")))

        disk.crash()
        #expect(disk.contents(of: p("Documents/a.txt")) == b("synced"))
        #expect(disk.stat(p("Documents/a.txt")) != before)
        #expect(disk.contents(of: p("Documents/new.txt")) == [])
        #expect(disk.contents(of: p("Documents/log")) == b("kept"))
        #expect(disk.contents(of: p("Documents/moved.txt")) == b("renamed") && disk.contents(of: p("Documents/r.txt")) == nil)
        #expect(disk.contents(of: p("Documents/saved.txt")) == b("saved"))
        #expect(disk.contents(of: p("Documents/c.txt")) == b("committed"))
        #expect(disk.temporaryFiles().isEmpty)
        #expect(code { try pending.write(b("more"), at: 7) } == .io)
        #expect(code { _ = try disk.commit(pending, to: p("Documents/p.txt"), metadata: .init(permissions: .defaults(for: .file), mtime: 1), keepReplacedAs: nil) } == .io)
        try disk.prepare()
        #expect(disk.snapshot().count == 7)
    }

    @Test func removingAFolderWithSyncedContentThrowsNotEmpty() throws {
        let disk = try makeDisk()
        try disk.clientMakeFolder(p("Documents/full"))
        try disk.clientWrite(p("Documents/full/keep.txt"), b("keep"))
        try disk.clientMakeFolder(p("Documents/ignored/cache.nosync/deep"))
        try disk.clientWrite(p("Documents/ignored/cache.nosync/deep/x"), b("cached"))
        try disk.clientMakeSymlink(p("Documents/link"), target: "full")

        #expect(code { try disk.remove(p("Documents/full")) } == .notEmpty)
        #expect(disk.contents(of: p("Documents/full/keep.txt")) == b("keep"))
        try disk.remove(p("Documents/ignored"))
        #expect(disk.snapshot().keys.allSatisfy { !$0.isInside(p("Documents/ignored")) })
        #expect(code { try disk.remove(p("Documents/none")) } == .notFound)
        #expect(code { try disk.remove(p("Documents/link/keep.txt")) } == .escapesContainer)
        try disk.remove(p("Documents/full/keep.txt"))
        try disk.remove(p("Documents/full"))
        try disk.remove(p("Documents/link"))
        #expect(disk.snapshot().mapValues(\.isFolder) == [p("Documents"): true])
    }

    @Test func versionsRoundTrip() throws {
        let disk = try makeDisk()
        let doc = p("Documents/report.txt")
        try disk.clientWrite(doc, b("mine"), fsync: true)
        let mine = try disk.versionName(of: doc, id: "A-1")
        #expect(mine == ChunkHasher.hash(b(doc.rawValue)).hex + "-412d31")

        try disk.commitVersion(try staged(disk, "mine"), of: doc, id: "A-1", metadata: .init(permissions: .defaults(for: .file), mtime: 7))
        _ = try disk.commit(try staged(disk, "theirs"), to: doc, metadata: .init(permissions: .defaults(for: .file), mtime: 9), keepReplacedAs: nil)
        try disk.commitVersion(try staged(disk, "remote"), of: doc, id: "B-2", metadata: .init(permissions: .defaults(for: .file), mtime: 8))
        let remote = try disk.versionName(of: doc, id: "B-2")
        #expect(disk.contents(of: doc) == b("theirs"))
        #expect(disk.storedVersions() == [mine: b("mine"), remote: b("remote")])
        #expect(try disk.storedVersionIDs(of: doc) == ["A-1", "B-2"])
        #expect(try disk.storedVersionIDs(of: p("Documents/other")).isEmpty)
        #expect(try disk.storedVersionNames().map { $0.name } == [mine, remote].sorted())
        #expect(try disk.read(.version(remote), offset: 0, size: 6) == Data(b("remote")))
        #expect(code { _ = try disk.read(.version("../x"), offset: 0, size: 1) } == .escapesContainer)
        #expect(disk.temporaryFiles().isEmpty)

        try disk.removeVersion(of: doc, id: "A-1")
        try disk.removeVersion(of: doc, id: "A-1")
        try disk.removeVersion(named: remote)
        #expect(try disk.storedVersionIDs(of: doc).isEmpty && disk.storedVersions().isEmpty)
        #expect(code { _ = try disk.versionName(of: doc, id: "") } == .io)
        #expect(code { _ = try disk.versionName(of: doc, id: String(repeating: "x", count: 65)) } == .io)
    }

    @Test func injectedFailuresFailWritesAndCommitsAndThenStop() throws {
        let disk = try makeDisk()
        disk.failNextWrites(1)
        #expect(code { _ = try disk.stage() } == .io)
        let file = try staged(disk, "data")
        disk.failNextWrites(1)
        #expect(code { _ = try disk.commit(file, to: p("Documents/f"), metadata: .init(permissions: .defaults(for: .file), mtime: 1), keepReplacedAs: nil) } == .io)
        #expect(disk.contents(of: p("Documents/f")) == nil && disk.temporaryFiles().isEmpty)
        _ = try disk.commit(try staged(disk, "data"), to: p("Documents/f"), metadata: .init(permissions: .defaults(for: .file), mtime: 1), keepReplacedAs: nil)
        #expect(disk.contents(of: p("Documents/f")) == b("data"))
    }

    /// The same operations on two disks, each on its own clock from the same start.
    @Test func equalOperationsGiveEqualStatsAndSnapshots() throws {
        func run() throws -> (stats: [RelativePath: FileStat], snapshot: [RelativePath: SimulatedDisk.Entry], temporary: [String]) {
            let disk = try makeDisk()
            try disk.clientMakeFolder(p("Documents/a/b"))
            try disk.clientWrite(p("Documents/a/one"), b("1"))
            _ = try disk.commit(try staged(disk, "two"), to: p("Documents/a/b/two"), metadata: .init(permissions: Permissions(mode: 0o755, kind: .file), mtime: 7), keepReplacedAs: nil)
            try disk.clientRename(from: p("Documents/a"), to: p("Documents/A"))
            try disk.commitVersion(try staged(disk, "kept"), of: p("Documents/A/b/two"), id: "V-1", metadata: .init(permissions: .defaults(for: .file), mtime: 8))
            _ = try disk.makeSymlink(p("Documents/l"), target: "A", mtime: 9)
            try disk.clientAppend(p("Documents/A/one"), b("+"))
            disk.crash()
            try disk.prepare()
            _ = try disk.stage()
            _ = try disk.stage()
            let stats = baseline(try scan(disk))
            return (stats, disk.snapshot(), disk.temporaryFiles())
        }
        let first = try run(), second = try run()
        #expect(first.stats.count == 6)
        #expect(first.stats == second.stats)
        #expect(first.snapshot == second.snapshot)
        #expect(first.temporary == second.temporary && first.temporary.count == 2)
    }
}
