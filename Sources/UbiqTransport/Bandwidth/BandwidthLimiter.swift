import Foundation

/// One direction's limit, shared by every connection it covers (all of them, or one peer's):
/// a sender takes its frame's bytes and waits while the bucket is in debt. A waiter looks
/// again at least every quarter second, so a new rate takes effect within a second.
public actor BandwidthLimiter {
    private var bucket: TokenBucket
    private var meter: RateMeter
    private let start = ContinuousClock.now

    public init(bytesPerSecond: Int64? = nil) {
        bucket = TokenBucket(rate: bytesPerSecond.map(Double.init), now: 0)
        meter = RateMeter(now: 0)
    }

    private var now: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Bytes per second; nil: no limit.
    public var limit: Int64? { bucket.rate.map { Int64($0) } }

    public func setLimit(_ bytesPerSecond: Int64?) {
        bucket.setRate(bytesPerSecond.map(Double.init), now: now)
    }

    /// What passed in the last second.
    public func currentRate() -> Int64 { Int64(meter.bytesPerSecond(now: now)) }

    /// Counts `bytes` and returns once the limit lets them through.
    public func pass(_ bytes: Int) async throws {
        meter.add(bytes, now: now)
        bucket.take(bytes, now: now)
        while true {
            let wait = bucket.wait(now: now)
            guard wait > 0 else { return }
            try await Task.sleep(for: .seconds(min(wait, 0.25)))
        }
    }
}
