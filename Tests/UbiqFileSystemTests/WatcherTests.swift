import Foundation
import Synchronization
import Testing
import UbiqFileSystem
import UbiqModel

/// Collects a watcher's batches on a task of its own, so a test can wait for what it expects.
final class BatchRecorder: Sendable {
    private let batches = Mutex<[WatchBatch]>([])
    private let ended = Mutex(false)

    init(_ watcher: Watcher) {
        let stream = watcher.batches
        Task {
            for await batch in stream {
                self.batches.withLock { $0.append(batch) }
            }
            self.ended.withLock { $0 = true }
        }
    }

    var all: [WatchBatch] { batches.withLock { $0 } }
    var paths: Set<RelativePath> { Set(all.flatMap(\.paths)) }
    var hasEnded: Bool { ended.withLock { $0 } }

    /// Waits until `condition` holds, checking every 5 ms, for at most `timeout`. The timeout
    /// only bounds a failure: the whole suite starts at once beside a hundred agents on two
    /// cores, and in CI the recorder's task waited more than 30 s for a thread to run on.
    func wait(timeout: Duration = .seconds(120), until condition: (BatchRecorder) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(self)
    }

    /// True once every path in `expected` was reported, itself or through a folder holding it.
    func saw(_ expected: [String]) -> Bool {
        let seen = paths
        return expected.map(path).allSatisfy { wanted in seen.contains { wanted.isInside($0) } }
    }
}

@Suite struct WatcherTests {
    func start(_ c: ContainerFixture) throws -> (Watcher, BatchRecorder) {
        let watcher = try Watcher(layout: c.layout, logger: c.logger)
        return (watcher, BatchRecorder(watcher))
    }

    @Test func seesANewFileAfterItCloses() async throws {
        let c = try ContainerFixture()
        let (watcher, recorder) = try start(c)
        defer { watcher.close() }
        try c.write("Documents/new.txt", "hello")
        // Timing is the aggregator's (tested there); here the cooperative pool is shared with
        // other suites, so only arrival is checked.
        #expect(await recorder.wait { $0.saw(["Documents/new.txt"]) })
    }

    @Test func seesModifyRenameAndDelete() async throws {
        let c = try ContainerFixture()
        try c.write("Documents/a.txt", "one")
        try c.write("Documents/b.txt", "two")
        let (watcher, recorder) = try start(c)
        defer { watcher.close() }

        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: c.absolute("Documents/a.txt")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(" more".utf8))
        try handle.close()
        #expect(await recorder.wait { $0.saw(["Documents/a.txt"]) })

        #expect(Glibc.rename(c.absolute("Documents/b.txt"), c.absolute("Documents/c.txt")) == 0)
        #expect(await recorder.wait { $0.saw(["Documents/b.txt", "Documents/c.txt"]) })

        #expect(unlink(c.absolute("Documents/a.txt")) == 0)
        let before = recorder.all.count
        #expect(await recorder.wait { $0.all.count > before && $0.all[before...].contains { $0.paths.contains(path("Documents/a.txt")) } })
    }

    @Test func watchesNewSubfolders() async throws {
        let c = try ContainerFixture()
        let (watcher, recorder) = try start(c)
        defer { watcher.close() }
        try c.mkdir("Documents/sub")
        #expect(await recorder.wait { $0.saw(["Documents/sub"]) })
        // The new folder is watched too: a file made in it later is reported by its own path.
        try c.write("Documents/sub/inner.txt", "x")
        #expect(await recorder.wait { $0.paths.contains(path("Documents/sub/inner.txt")) })

        // A tree moved in from outside is watched as a whole.
        let outside = c.directory.appending("outside/deep")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        #expect(Glibc.rename(c.directory.appending("outside"), c.absolute("Documents/moved")) == 0)
        #expect(await recorder.wait { $0.saw(["Documents/moved"]) })
        try c.write("Documents/moved/deep/f.txt", "y")
        #expect(await recorder.wait { $0.paths.contains(path("Documents/moved/deep/f.txt")) })
    }

    /// A package's new version swapped in with one exchange is watched whole: the kernel
    /// reports the new folder's arrival before the old one's departure, under the same name.
    @Test func aFolderExchangedInIsWatched() async throws {
        let c = try ContainerFixture()
        try c.write("Documents/Report.pages/Data/page.bin", "old")
        let (watcher, recorder) = try start(c)
        defer { watcher.close() }
        let staging = try c.fileSystem.stagePackage()
        let data = PackageMember(path: path("Data"), kind: .directory)
        try staging.addFolder(data)
        let file = try c.fileSystem.makeTempFile()
        try file.write(Array("new".utf8), at: 0)
        try staging.addFile(PackageMember(path: path("Data/page.bin"), kind: .file, size: 3, mtime: 1), from: file)
        try staging.finishFolders([data], package: PackageMember(path: path("Report.pages"), kind: .directory))
        _ = try c.fileSystem.exchange(staging, into: path("Documents/Report.pages"))
        #expect(await recorder.wait { $0.saw(["Documents/Report.pages"]) })

        // A program then writes inside the new tree: its folders are watched.
        let before = recorder.all.count
        try c.write("Documents/Report.pages/Data/page.bin", "written after the swap")
        #expect(await recorder.wait { $0.all.count > before && $0.all[before...].contains { $0.paths.contains(path("Documents/Report.pages/Data/page.bin")) } })
    }

    /// A folder's mtime set (as the agent puts it back after placing a file inside) or its
    /// mode changed is reported as that folder alone, never as a subtree to rescan.
    @Test func aFoldersOwnAttributesAreReportedAsTheFolderAlone() async throws {
        let c = try ContainerFixture()
        try c.write("Documents/logs/1.log", "one")
        let (watcher, recorder) = try start(c)
        defer { watcher.close() }
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, c.absolute("Documents/logs"), &times, 0) == 0)
        #expect(await recorder.wait { $0.all.contains { $0.folders.contains(path("Documents/logs")) } })
        #expect(chmod(c.absolute("Documents/logs"), 0o700) == 0)
        #expect(await recorder.wait { $0.all.filter { $0.folders.contains(path("Documents/logs")) }.count == 2 })
        #expect(recorder.paths.isEmpty)
    }

    @Test func ignoresAgentFolderAndNosync() async throws {
        let c = try ContainerFixture()
        try c.mkdir("Documents/cache.nosync")
        let (watcher, recorder) = try start(c)
        defer { watcher.close() }
        try c.write(".ubiq/tmp/t-x", "partial")
        try c.write("Documents/cache.nosync/blob", "cached")
        try c.write("Documents/other.nosync", "x")
        try c.write("Documents/marker", "m")
        #expect(await recorder.wait { $0.paths.contains(path("Documents/marker")) })
        #expect(recorder.paths == [path("Documents/marker")])
    }

    @Test func unclosedWritesAreReportedAfterTheModifyDelay() async throws {
        let c = try ContainerFixture()
        try c.write("Documents/log", "")
        let options = WatchAggregator.Options(modifyDelay: .milliseconds(100))
        let watcher = try Watcher(layout: c.layout, options: options, logger: c.logger)
        let recorder = BatchRecorder(watcher)
        defer { watcher.close() }
        let fd = open(c.absolute("Documents/log"), O_WRONLY | O_APPEND)
        #expect(fd >= 0)
        defer { close(fd) }
        let started = ContinuousClock.now
        #expect(write(fd, "line\n", 5) == 5)
        #expect(await recorder.wait { $0.saw(["Documents/log"]) })
        #expect(ContinuousClock.now - started >= .milliseconds(100))
    }

    @Test func closeEndsTheStream() async throws {
        let c = try ContainerFixture()
        let (watcher, recorder) = try start(c)
        watcher.close()
        #expect(await recorder.wait { $0.hasEnded })
    }

    @Test func missingRootThrows() throws {
        let c = try ContainerFixture()
        #expect(throws: FileSystemError.self) {
            _ = try Watcher(layout: ContainerLayout(root: c.layout.root + "/missing"), logger: c.logger)
        }
    }
}
