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
        #expect(hold.scanFound(files(0..<100), at: start) == .record)
        #expect(hold.phase == .none)
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
        #expect(hold.scanFound(files(150..<500), at: start) == .holdBack)
        #expect(hold.windowEnded(liveFiles: 600, now: 42) == nil)
        #expect(hold.phase == .holding(since: 42) && hold.files == 500)
        #expect(hold.scanFound(files(500..<510), at: start) == .holdBack)
        #expect(hold.files == 510)
    }

    @Test func manySmallBatchesOfOneBurstStartGatheringOnceTheyPassTheThreshold() {
        var hold = DeletionHold(threshold: 100)
        #expect(hold.scanFound(files(0..<60), at: start) == .record)
        #expect(hold.scanFound(files(60..<100), at: start + .milliseconds(30)) == .record)
        #expect(hold.scanFound(files(100..<101), at: start + .milliseconds(60)) == .gather(until: start + .milliseconds(60) + DeletionHold.gatherWindow))
        #expect(hold.scanFound(files(101..<600), at: start + .milliseconds(90)) == .holdBack)
        #expect(hold.windowEnded(liveFiles: 500, now: 7) == nil)
        #expect(hold.files == 500)
        // Deletions far apart are no burst.
        var apart = DeletionHold(threshold: 100)
        #expect(apart.scanFound(files(0..<60), at: start) == .record)
        #expect(apart.scanFound(files(60..<120), at: start + .seconds(3)) == .record)
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
