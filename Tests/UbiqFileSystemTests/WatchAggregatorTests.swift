import Testing
import UbiqFileSystem
import UbiqModel

@Suite struct WatchAggregatorTests {
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }
    let options = WatchAggregator.Options(
        settleDelay: .milliseconds(3), settleMaximumDelay: .milliseconds(25),
        modifyDelay: .milliseconds(200), maximumDelay: .seconds(1))

    /// Files saved one after another inside a package are one batch of the package, once it
    /// has been quiet; a file beside it still goes at once.
    @Test func aPackagesFilesAreOneBatchOnceThePackageIsQuiet() {
        var packaged = options
        packaged.packages = PackageRules(extensions: ["pages"])
        var aggregator = WatchAggregator(options: packaged)
        for (index, name) in ["Index.xml", "Data/one.png", "Data/two.png"].enumerated() {
            aggregator.record(path("Documents/Report.pages/" + name), .modified, at: at(index * 50))
            aggregator.record(path("Documents/Report.pages/" + name), .settled, at: at(index * 50 + 1))
        }
        aggregator.record(path("Documents/note.txt"), .settled, at: at(102))
        #expect(aggregator.flush(at: at(105)) == WatchBatch(paths: [path("Documents/note.txt")]))
        #expect(aggregator.nextDeadline() == at(301))
        #expect(aggregator.flush(at: at(300)) == nil)
        #expect(aggregator.flush(at: at(301)) == WatchBatch(paths: [path("Documents/Report.pages")]))
        // The package folder's own events count too (a file made or removed in it).
        aggregator.record(path("Documents/Report.pages"), .settled, at: at(400))
        #expect(aggregator.nextDeadline() == at(600))
        #expect(aggregator.isEmpty == false)
    }

    /// A folder whose own attributes alone changed (the agent putting back its mtime after
    /// placing a file in it) is batched alone, not as its subtree to rescan; any other event
    /// at it, or a subtree holding it in the same batch, makes it a subtree again.
    @Test func aFolderWhoseAttributesAloneChangedIsBatchedAlone() {
        var aggregator = WatchAggregator(options: options)
        aggregator.record(path("Records/s/dev"), .folderItself, at: at(0))
        aggregator.record(path("Records/s/dev/1.log"), .settled, at: at(0))
        #expect(aggregator.flush(at: at(3)) == WatchBatch(paths: [path("Records/s/dev/1.log")], folders: [path("Records/s/dev")]))

        aggregator.record(path("Documents/a"), .folderItself, at: at(10))
        aggregator.record(path("Documents/a"), .settled, at: at(11))
        #expect(aggregator.flush(at: at(14)) == WatchBatch(paths: [path("Documents/a")]))

        aggregator.record(path("Documents/b/c"), .folderItself, at: at(20))
        aggregator.record(path("Documents/b"), .settled, at: at(20))
        #expect(aggregator.flush(at: at(23)) == WatchBatch(paths: [path("Documents/b")]))
    }

    @Test func emptyHasNoDeadline() {
        var aggregator = WatchAggregator(options: options)
        #expect(aggregator.nextDeadline() == nil)
        #expect(aggregator.flush(at: at(10_000)) == nil)
        #expect(aggregator.isEmpty)
    }

    @Test func closedFileFlushesAfterTheSettleDelay() {
        var aggregator = WatchAggregator(options: options)
        aggregator.record(path("Documents/a"), .modified, at: at(0))
        aggregator.record(path("Documents/a"), .settled, at: at(1))
        #expect(aggregator.nextDeadline() == at(4))
        #expect(aggregator.flush(at: at(3)) == nil)
        #expect(aggregator.flush(at: at(4)) == WatchBatch(paths: [path("Documents/a")]))
        #expect(aggregator.isEmpty)
    }

    @Test func fileBeingWrittenWaitsForQuiet() {
        var aggregator = WatchAggregator(options: options)
        aggregator.record(path("Documents/log"), .modified, at: at(0))
        aggregator.record(path("Documents/log"), .modified, at: at(100))
        #expect(aggregator.nextDeadline() == at(300))
        #expect(aggregator.flush(at: at(299)) == nil)
        #expect(aggregator.flush(at: at(300))?.paths == [path("Documents/log")])
    }

    @Test func closeAfterWritesFlushesQuickly() {
        var aggregator = WatchAggregator(options: options)
        aggregator.record(path("Documents/a"), .modified, at: at(0))
        aggregator.record(path("Documents/a"), .modified, at: at(50))
        aggregator.record(path("Documents/a"), .settled, at: at(60))
        #expect(aggregator.flush(at: at(63))?.paths == [path("Documents/a")])
    }

    @Test func endlessWritesAreCappedAtTheMaximumDelay() {
        var aggregator = WatchAggregator(options: options)
        var flushed: ContinuousClock.Instant?
        for ms in stride(from: 0, through: 1500, by: 50) {
            aggregator.record(path("Documents/log"), .modified, at: at(ms))
            if aggregator.flush(at: at(ms)) != nil {
                flushed = at(ms)
                break
            }
        }
        #expect(flushed == at(1000))
    }

    @Test func aBurstIsOneBatchWithinTheSettleCap() {
        var aggregator = WatchAggregator(options: options)
        for ms in 0..<10 {
            aggregator.record(path("Documents/f\(ms)"), .settled, at: at(ms))
            #expect(aggregator.flush(at: at(ms)) == nil)
        }
        #expect(aggregator.nextDeadline() == at(12))
        #expect(aggregator.flush(at: at(12))?.paths.count == 10)

        // An endless burst still flushes each path within settleMaximumDelay.
        for ms in 100..<140 {
            aggregator.record(path("Documents/g\(ms)"), .settled, at: at(ms))
            if let batch = aggregator.flush(at: at(ms)) {
                #expect(ms == 125)
                #expect(batch.paths.count == 26)
                return
            }
        }
        Issue.record("a continuous burst was never flushed")
    }

    @Test func settledPathsDoNotWaitForFilesBeingWritten() {
        var aggregator = WatchAggregator(options: options)
        aggregator.record(path("Documents/log"), .modified, at: at(0))
        aggregator.record(path("Documents/doc"), .settled, at: at(1))
        #expect(aggregator.flush(at: at(4)) == WatchBatch(paths: [path("Documents/doc")]))
        #expect(aggregator.flush(at: at(200)) == WatchBatch(paths: [path("Documents/log")]))
    }

    @Test func overflowAsksForAFullRescan() {
        var aggregator = WatchAggregator(options: options)
        aggregator.record(path("Documents/log"), .modified, at: at(0))
        aggregator.recordOverflow(at: at(1))
        #expect(aggregator.flush(at: at(4)) == WatchBatch(paths: [path("Documents/log")], rescanAll: true))
        #expect(aggregator.isEmpty)
    }

    @Test func pathsInsideAFlushedFolderAreCollapsed() {
        var aggregator = WatchAggregator(options: options)
        aggregator.record(path("Documents/new/a"), .settled, at: at(0))
        aggregator.record(path("Documents/new"), .settled, at: at(0))
        aggregator.record(path("Documents/new/b/c"), .settled, at: at(0))
        aggregator.record(path("Documents/newer"), .settled, at: at(0))
        #expect(aggregator.flush(at: at(3))?.paths == [path("Documents/new"), path("Documents/newer")])
    }
}
