import Testing
import UbiqTransport

@Suite struct TokenBucketTests {
    static let mib = 1024.0 * 1024

    /// A frame larger than the bucket passes at once and what follows waits for the debt; a
    /// new rate pays the rest of the debt at once at its own speed.
    @Test func debtIsPaidAtTheRateInForceNow() {
        var bucket = TokenBucket(rate: Self.mib, now: 0)
        bucket.take(2 << 20, now: 0)
        let first = bucket.wait(now: 0)
        #expect(abs(first - 1.9) < 0.001, "\(first)")
        #expect(abs(bucket.wait(now: 1) - 0.9) < 0.001)
        bucket.setRate(2 * Self.mib, now: 1)
        #expect(abs(bucket.wait(now: 1) - 0.45) < 0.001)
        #expect(bucket.wait(now: 1.5) == 0)
        bucket.setRate(nil, now: 1.5)
        bucket.take(1 << 30, now: 1.5)
        #expect(bucket.wait(now: 1.5) == 0)
    }

    /// Saved-up tokens are capped at a tenth of a second, so an idle link cannot burst.
    @Test func anIdleBucketSavesAtMostATenthOfASecond() {
        var bucket = TokenBucket(rate: Self.mib, now: 0)
        bucket.take(0, now: 100)
        bucket.take(1 << 20, now: 100)
        #expect(abs(bucket.wait(now: 100) - 0.9) < 0.001)
    }

    @Test func theMeterCountsTheLastSecond() {
        var meter = RateMeter(now: 0)
        meter.add(1000, now: 0.1)
        meter.add(3000, now: 0.6)
        #expect(meter.bytesPerSecond(now: 1.0) == 4000)
        #expect(meter.bytesPerSecond(now: 1.3) == 3000)
        #expect(meter.bytesPerSecond(now: 5) == 0)
    }
}
