import Testing
import UbiqModel
@testable import UbiqSync

/// A container's sync decisions, with no disk, index or network: what a pass takes, what a
/// failure or a case conflict leaves behind, and when each is forgotten.
@Suite struct ContainerStateTests {
    let me = DeviceID("ME")
    let start = ContinuousClock.now

    func item(_ path: String, counter: UInt64 = 1) -> Item {
        Item(path: try! RelativePath(path), kind: .file, deleted: false, size: 0, mtime: 1, chunks: [],
             version: VersionVector([me: counter]), modifiedBy: me)
    }

    func plan(_ start: ContainerState.PassStart) -> PullPlan? {
        if case .apply(let plan) = start { return plan }
        return nil
    }

    @Test func aCaseConflictIsForgottenWhenItsPathIsWrittenOrNoLongerNeeded() {
        var state = ContainerState(overtakeAfter: .seconds(2))
        let a = item("Documents/README.txt"), b = item("Documents/notes.txt")
        let twin = try! RelativePath("Documents/Readme.txt")
        let first = state.caseConflict(a.path, twin: twin), again = state.caseConflict(a.path, twin: twin)
        let other = state.caseConflict(b.path, twin: try! RelativePath("Documents/Notes.txt"))
        #expect(first && !again && other, "each conflict is new once")
        // Still needed: still a conflict.
        _ = state.passEnded(plan(state.passBegins(needs: [a, b], at: start)))
        #expect(state.caseConflicts.count == 2)
        // Written (the twin went away): forgotten.
        state.settled([a.path])
        #expect(state.caseConflicts.keys.map(\.rawValue) == ["Documents/notes.txt"])
        // No longer needed (the peer deleted it meanwhile, say): forgotten at the next pass.
        let idle = state.passBegins(needs: [], at: start)
        #expect(idle == .nothingNeeded(sweepVersions: true))
        #expect(state.caseConflicts.isEmpty)
    }

    @Test func keptVersionsAreSweptAtMostEveryTenSecondsAndNeverDuringAPass() throws {
        var state = ContainerState(overtakeAfter: .seconds(2))
        #expect(state.passBegins(needs: [], at: start) == .nothingNeeded(sweepVersions: true))
        #expect(state.passBegins(needs: [], at: start + .seconds(9)) == .nothingNeeded(sweepVersions: false))
        // A pass holding a path: not while it runs, even when due.
        let running = try #require(plan(state.passBegins(needs: [item("Documents/a.txt")], at: start + .seconds(10))))
        #expect(state.passBegins(needs: [], at: start + .seconds(11)) == .nothingNeeded(sweepVersions: false))
        _ = state.passEnded(running)
        #expect(state.passBegins(needs: [], at: start + .seconds(12)) == .nothingNeeded(sweepVersions: true))
        #expect(state.passBegins(needs: [], at: start + .seconds(13)) == .nothingNeeded(sweepVersions: false))
    }

    @Test func aScanReplacesWhatEarlierScansFoundUnderItsRootOnly() {
        var state = ContainerState(overtakeAfter: .seconds(2))
        let bad = ScanProblem(path: "Documents/a/bad\\xFF", reason: "not UTF-8"), locked = ScanProblem(path: "Documents/b/locked", reason: "unreadable")
        state.scanned(nil, problems: [bad, locked])
        #expect(Set(state.scanProblems.values) == [bad, locked])
        state.scanned(try! RelativePath("Documents/a"), problems: [])
        #expect(Array(state.scanProblems.values) == [locked], "renamed away: gone; elsewhere: kept")
        state.scanned(try! RelativePath("Documents/b/locked"), problems: [locked])
        #expect(Array(state.scanProblems.values) == [locked])
        state.scanned(nil, problems: [])
        #expect(state.scanProblems.isEmpty)
    }

    @Test func aFailedChangeWaitsGoesLastAloneAndIsForgottenWhenWritten() throws {
        var state = ContainerState(overtakeAfter: .seconds(2))
        let stuck = item("Documents/stuck.bin"), other = item("Documents/a.txt"), third = item("Documents/b.txt")
        let note = state.failed(stuck, reason: "no space", at: start)
        #expect(note.failures == 1 && note.retryIn == RetryBackoff.first && note.news?.reason == "no space")
        let again = state.failed(stuck, reason: "no space", at: start)
        #expect(again.news == nil && again.failures == 2, "the same reason is news once")
        // While it waits, a pass leaves it out.
        let waiting = try #require(plan(state.passBegins(needs: [stuck, other, third], at: start)))
        #expect(waiting.taken.map(\.rawValue) == ["Documents/a.txt", "Documents/b.txt"])
        _ = state.passEnded(waiting)
        // Once due, it comes after the others, alone.
        let due = try #require(plan(state.passBegins(needs: [stuck, other, third], at: start + .seconds(2))))
        #expect(due.steps.map { $0.map(\.path.rawValue) } == [["Documents/a.txt", "Documents/b.txt"], ["Documents/stuck.bin"]])
        _ = state.passEnded(due)
        state.settled([stuck.path])
        #expect(state.failures.isEmpty)
    }

    @Test func aPeerThatHoldsAFailedChangeEndsItsWait() throws {
        var state = ContainerState(overtakeAfter: .seconds(2))
        let stuck = item("Documents/stuck.bin")
        _ = state.failed(stuck, reason: "no peer has it", at: start)
        let waiting = state.passBegins(needs: [stuck], at: start)
        #expect(waiting == .nothingFree)
        let others = state.peersHold([try RelativePath("Documents/other")], at: start)
        let itself = state.peersHold([stuck.path], at: start)
        #expect(!others && itself)
        let retried = state.passBegins(needs: [stuck], at: start)
        #expect(plan(retried)?.taken == [stuck.path])
    }

    @Test func twoPassesNeverTakeTheSameNeedAndALeftNeedMakesAnotherPassDue() throws {
        var state = ContainerState(overtakeAfter: .seconds(2))
        let slow = item("Documents/slow.bin"), next = item("Documents/next.txt")
        let asked = state.pullAsked(at: start, waitingSince: nil)
        #expect(asked == .start)
        let first = try #require(plan(state.passBegins(needs: [slow], at: start)))
        // A second pass, once the first has waited long enough, takes only what is free.
        let overtaking = state.pullAsked(at: start + .seconds(3), waitingSince: start)
        #expect(overtaking == .start)
        let second = try #require(plan(state.passBegins(needs: [slow, next], at: start)))
        #expect(second.taken == [next.path])
        // It left a need busy that may have changed meanwhile: another pass is due.
        let due = state.passEnded(second)
        #expect(due)
        let dueAgain = state.passEnded(first)
        #expect(!dueAgain)
    }

    @Test func scansLeftForALeaseAreTakenOnce() {
        var state = ContainerState(overtakeAfter: .seconds(2))
        state.deferScans([try! RelativePath("Documents/a"), nil])
        let due = state.takeDeferredScans(), again = state.takeDeferredScans()
        #expect(due.count == 2 && again.isEmpty)
    }
}
