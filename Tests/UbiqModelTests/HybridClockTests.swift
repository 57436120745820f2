import Testing
import UbiqModel

@Suite struct HybridClockTests {
    @Test func timestampsNeverGoBackwardsWhenTheWallClockDoes() {
        var clock = HybridClock()
        let first = clock.tick(now: 1000)
        let second = clock.tick(now: 400)
        let third = clock.tick(now: 400)
        #expect(first < second && second < third)
        #expect(second == HybridTimestamp(wall: 1000, logical: 1))
        #expect(clock.tick(now: 2000) == HybridTimestamp(wall: 2000, logical: 0))
    }

    @Test func aWriteAfterSeeingAnotherIsLaterEvenWithAClockAnHourBehind() {
        var ahead = HybridClock(), behind = HybridClock()
        let now: Int64 = 1_795_000_000_000
        let seen = ahead.tick(now: now)
        behind.observe(seen, now: now - 3_600_000)
        let reply = behind.tick(now: now - 3_600_000 + 5)
        #expect(reply > seen)
        #expect(reply.wall == seen.wall)
    }

    @Test func observeFollowsThePaper() {
        var clock = HybridClock(last: HybridTimestamp(wall: 100, logical: 4))
        clock.observe(HybridTimestamp(wall: 100, logical: 9), now: 50)
        #expect(clock.last == HybridTimestamp(wall: 100, logical: 10))
        clock.observe(HybridTimestamp(wall: 90, logical: 99), now: 50)
        #expect(clock.last == HybridTimestamp(wall: 100, logical: 11))
        clock.observe(HybridTimestamp(wall: 150, logical: 3), now: 50)
        #expect(clock.last == HybridTimestamp(wall: 150, logical: 4))
        clock.observe(HybridTimestamp(wall: 10, logical: 3), now: 200)
        #expect(clock.last == HybridTimestamp(wall: 200, logical: 0))
    }

    @Test func aPeerFarInTheFutureCannotDragTheClockAlong() {
        var clock = HybridClock()
        clock.observe(HybridTimestamp(wall: .max, logical: .max), now: 1000)
        #expect(clock.last.wall == 1000 + HybridClock.maxDrift)
    }

    @Test func theLogicalCounterDoesNotOverflow() {
        var clock = HybridClock(last: HybridTimestamp(wall: 5, logical: .max))
        #expect(clock.tick(now: 1) == HybridTimestamp(wall: 6, logical: 0))
    }
}
