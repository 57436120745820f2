import Testing
@testable import UbiqSync

/// Pull passes run one at a time unless a transfer has waited long for its peer; asks that
/// come while passes run are not lost.
@Suite struct PullPassScheduleTests {
    let t0 = ContinuousClock.now

    func seconds(_ value: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int(value * 1000)) }

    @Test func asksWhileAPassRunsWaitForItToEnd() {
        var schedule = PullPassSchedule(overtakeAfter: .seconds(2))
        let first = schedule.asked(at: t0, waitingSince: nil)
        let during = [schedule.asked(at: seconds(10), waitingSince: nil), schedule.asked(at: seconds(11), waitingSince: nil)]
        let again = schedule.ended(tookSome: true)
        let next = schedule.asked(at: seconds(12), waitingSince: nil)
        let afterNext = schedule.ended(tookSome: true)
        #expect(first == .start)
        #expect(during == [.wait(wakeAt: nil), .wait(wakeAt: nil)])
        #expect(again, "the asks that waited get one more pass")
        #expect(next == .start)
        #expect(!afterNext)
    }

    @Test func aTransferThatWaitsLetsASecondPassStart() {
        var schedule = PullPassSchedule(overtakeAfter: .seconds(2))
        _ = schedule.asked(at: t0, waitingSince: nil)
        // A file has waited 1 s: ask again when it has waited 2 s, once.
        let early = schedule.asked(at: seconds(2), waitingSince: seconds(1))
        let earlyAgain = schedule.asked(at: seconds(2.5), waitingSince: seconds(1))
        let due = schedule.asked(at: seconds(3), waitingSince: seconds(1))
        let third = schedule.asked(at: seconds(9), waitingSince: seconds(1))
        #expect(early == .wait(wakeAt: seconds(3)))
        #expect(earlyAgain == .wait(wakeAt: nil))
        #expect(due == .start)
        #expect(third == .wait(wakeAt: nil), "never more than two at once")
        #expect(schedule.runningCount == 2)
    }

    @Test func needsLeftBusyGetAnotherPassWhenThePassHoldingThemEnds() {
        var schedule = PullPassSchedule(overtakeAfter: .seconds(2))
        _ = schedule.asked(at: t0, waitingSince: nil)
        let second = schedule.asked(at: seconds(5), waitingSince: t0)
        schedule.passLeftNeedsBusy()
        let afterSecond = schedule.ended(tookSome: true)
        let third = schedule.asked(at: seconds(6), waitingSince: t0)
        schedule.passLeftNeedsBusy()
        let afterThird = schedule.ended(tookSome: false)
        let afterFirst = schedule.ended(tookSome: true)
        #expect(second == .start)
        #expect(afterSecond, "pass 1 may have let go of what pass 2 left")
        #expect(third == .start)
        #expect(!afterThird, "a pass that took nothing lets go of nothing")
        #expect(afterFirst, "what passes 2 and 3 left may have changed again while pass 1 applied it")
        #expect(schedule.runningCount == 0)
    }
}
