import Testing
import UbiqModel
@testable import UbiqSync

/// The rule of a mass deletion: a burst over the threshold is gathered, then held when it is
/// over half of the container, or recorded; held paths found again leave the hold.
@Suite struct DeletionHoldTests {
    let start = ContinuousClock.now

    func files(_ range: Range<Int>, in folder: String = "Documents") -> [RelativePath: Bool] {
        Dictionary(uniqueKeysWithValues: range.map { (try! RelativePath("\(folder)/\($0).txt"), false) })
    }

    @Test func fewDeletionsAreRecordedAtOnce() {
        var hold = DeletionHold(threshold: 100)
        #expect(hold.scanFound(files(0..<25), at: start) == .record)
        #expect(hold.phase == .none)
    }

    /// More than a quarter of the threshold in one scan is gathered first, and judged with
    /// what the next scans add: scans a second apart (each left out files the agent was
    /// writing just then) are one burst, though each alone is under the threshold.
    @Test func aBurstOfScansEachUnderTheThresholdIsGatheredWhole() {
        var hold = DeletionHold(threshold: 100)
        #expect(hold.scanFound(files(0..<47), at: start) == .gather(until: start + DeletionHold.gatherWindow))
        let second = start + .seconds(1), third = start + .seconds(2)
        #expect(hold.scanFound(files(47..<100), at: second) == .gather(until: second + DeletionHold.gatherWindow))
        #expect(hold.scanFound(files(100..<150), at: third) == .gather(until: third + DeletionHold.gatherWindow))
        #expect(!hold.windowEnds(by: second + DeletionHold.gatherWindow))
        #expect(hold.windowEnds(by: third + DeletionHold.gatherWindow))
        #expect(hold.windowEnded(liveFiles: 150, now: 3) == nil)
        #expect(hold.phase == .holding(since: 3) && hold.files == 150)
        // Under half of the container, the gathered burst is recorded whole when judged.
        var small = DeletionHold(threshold: 100)
        _ = small.scanFound(files(0..<30), at: start)
        #expect(small.windowEnded(liveFiles: 1000, now: 1).map(Set.init) == Set(files(0..<30).keys))
    }

    /// Deletions that never stop coming are judged after ``DeletionHold/longestGather``.
    @Test func aBurstIsGatheredAtMostTheLongestGather() {
        var hold = DeletionHold(threshold: 100)
        _ = hold.scanFound(files(0..<50), at: start)
        for second in 1...30 {
            _ = hold.scanFound(files((50 * second)..<(50 * second + 50)), at: start + .seconds(second))
        }
        #expect(hold.windowEnds(by: start + DeletionHold.longestGather))
    }

    /// Peers hear again of each path that goes into the hold (its content is not served
    /// here) and of each that leaves it, once.
    @Test func pathsEnteringOrLeavingTheHoldAreDueToBeAnnouncedOnce() {
        var hold = DeletionHold(threshold: 100)
        #expect(hold.unannounced.isEmpty)
        _ = hold.scanFound(files(0..<150), at: start)
        #expect(hold.unannounced == Set(files(0..<150).keys))
        hold.announcedAll()
        #expect(hold.unannounced.isEmpty)
        _ = hold.windowEnded(liveFiles: 200, now: 1)
        let back = Array(files(0..<10).keys)
        _ = hold.release(back)
        #expect(hold.unannounced == Set(back))
        hold.announcedAll()
        _ = hold.takeAll()
        #expect(hold.unannounced == Set(files(10..<150).keys))
    }

    @Test func aBurstSplitOverScansIsGatheredThenHeld() {
        var hold = DeletionHold(threshold: 100)
        #expect(hold.scanFound(files(0..<150), at: start) == .gather(until: start + DeletionHold.gatherWindow))
        // The watcher's next batch of the same `rm`, and a few more later, join it.
        #expect(hold.scanFound(files(150..<500), at: start) == .gather(until: start + DeletionHold.gatherWindow))
        #expect(hold.windowEnded(liveFiles: 600, now: 42) == nil)
        #expect(hold.phase == .holding(since: 42) && hold.files == 500)
        #expect(hold.scanFound(files(500..<510), at: start) == .holdBack)
        #expect(hold.files == 510)
    }

    /// A folder that goes while the agent writes into it: each write's scan runs after, and
    /// finds its one file gone. A quarter of the threshold passes, the rest is gathered, and
    /// the burst is judged with what passed.
    @Test func oneScanAFileStartsGatheringAfterAQuarterOfTheThreshold() {
        var hold = DeletionHold(threshold: 100)
        for n in 0..<25 {
            #expect(hold.scanFound(files(n..<(n + 1)), at: start + .milliseconds(10 * n)) == .record)
        }
        for n in 25..<150 {
            let now = start + .milliseconds(10 * n)
            #expect(hold.scanFound(files(n..<(n + 1)), at: now) == .gather(until: now + DeletionHold.gatherWindow))
        }
        // The index still lists the 125 gathered files, and no longer the 25 recorded.
        #expect(hold.windowEnded(liveFiles: 125, now: 7) == nil)
        #expect(hold.phase == .holding(since: 7) && hold.files == 125)
        // Deletions far apart are no burst.
        var apart = DeletionHold(threshold: 100)
        #expect(apart.scanFound(files(0..<20), at: start) == .record)
        #expect(apart.scanFound(files(20..<40), at: start + .seconds(3)) == .record)
        // A burst in a large container is recorded whole, what passed before it included.
        var large = DeletionHold(threshold: 100)
        _ = large.scanFound(files(0..<20), at: start)
        _ = large.scanFound(files(20..<120), at: start + .milliseconds(10))
        #expect(large.windowEnded(liveFiles: 1000, now: 7).map(Set.init) == Set(files(20..<120).keys))
    }

    @Test func aBurstUnderHalfOfTheContainerIsRecordedWhenItsWindowEnds() {
        var hold = DeletionHold(threshold: 100)
        _ = hold.scanFound(files(0..<150), at: start)
        let recorded = hold.windowEnded(liveFiles: 1000, now: 1)
        #expect(recorded.map(Set.init) == Set(files(0..<150).keys))
        #expect(hold.phase == .none)
    }

    @Test func heldPathsFoundAgainLeaveTheHold() {
        var hold = DeletionHold(threshold: 10)
        _ = hold.scanFound(files(0..<20, in: "Documents/a").merging(files(0..<20, in: "Documents/b")) { $1 }, at: start)
        _ = hold.windowEnded(liveFiles: 40, now: 1)
        // A scan of Documents/a finds its files back; Documents/b was not looked at.
        hold.scanned([try! RelativePath("Documents/a")], stillDeleted: [])
        #expect(hold.files == 20)
        hold.scanned([nil], stillDeleted: [])
        #expect(hold.phase == .none && hold.files == 0)
    }

    @Test func pathsAPeerChangedAreReleasedAndTheRestStayHeld() {
        var hold = DeletionHold(threshold: 100)
        _ = hold.scanFound(files(0..<200), at: start)
        _ = hold.windowEnded(liveFiles: 200, now: 1)
        let changed = try! [RelativePath("Documents/5.txt"), RelativePath("Documents/elsewhere.txt")]
        #expect(hold.release(changed) == [changed[0]])
        #expect(hold.files == 199 && hold.phase == .holding(since: 1))
        #expect(hold.release(Array(files(0..<200).keys)).count == 199)
        #expect(hold.phase == .none)
    }

    @Test func aThresholdOfZeroHoldsNothing() {
        var hold = DeletionHold(threshold: 0)
        #expect(hold.scanFound(files(0..<10_000), at: start) == .record)
    }
}

/// Which held paths a restore puts back when some files cannot come back.
@Suite struct RestorableHeldPathsTests {
    static func paths(_ raw: [String]) -> Set<RelativePath> { Set(raw.map { try! RelativePath($0) }) }

    @Test func aFolderWhoseFilesCannotComeBackStaysAwayAndOneWithAFileComesBack() {
        let held = Self.paths(["Documents/a", "Documents/a/1", "Documents/a/sub", "Documents/a/sub/2", "Documents/b", "Documents/b/3",
                               "Documents/b/4", "Documents/empty"])
        let restorable = ContainerSync.restorable(held, unrecoverable: Self.paths(["Documents/a/1", "Documents/a/sub/2", "Documents/b/3"]))
        #expect(restorable == Self.paths(["Documents/b", "Documents/b/4", "Documents/empty"]))
    }
}
