/// A token bucket that may go into debt: a frame larger than the bucket is let through at
/// once and the bytes after it wait until the debt is paid, so the long-run rate is the limit
/// whatever the frame sizes. Pure: time comes in as seconds, so the rules are tested alone.
public struct TokenBucket: Sendable, Equatable {
    /// Bytes per second; nil: no limit.
    public private(set) var rate: Double?
    /// Tokens now; negative while in debt.
    private(set) var tokens: Double
    private var last: Double

    /// The most tokens saved up: a tenth of a second at the rate, at least 16 KiB.
    var capacity: Double { max((rate ?? 0) / 10, 16 * 1024) }

    public init(rate: Double?, now: Double) {
        self.rate = rate
        self.last = now
        self.tokens = 0
        tokens = capacity
    }

    /// Changes the rate from `now` on; a debt is paid at the new rate.
    public mutating func setRate(_ rate: Double?, now: Double) {
        refill(now)
        self.rate = rate
        tokens = min(tokens, capacity)
    }

    /// Takes `bytes` (going into debt where there are too few).
    public mutating func take(_ bytes: Int, now: Double) {
        refill(now)
        guard rate != nil else { return }
        tokens -= Double(bytes)
    }

    /// How long until the debt is paid at the current rate; zero when there is none.
    public mutating func wait(now: Double) -> Double {
        refill(now)
        guard let rate, tokens < 0 else { return 0 }
        return -tokens / rate
    }

    private mutating func refill(_ now: Double) {
        defer { last = max(last, now) }
        guard let rate, now > last else { return }
        tokens = min(capacity, tokens + (now - last) * rate)
    }
}

/// Bytes per second over the last second, in quarter-second slots.
public struct RateMeter: Sendable, Equatable {
    private var slots = [Int](repeating: 0, count: 5)
    private var slotStart: Double

    public init(now: Double) { slotStart = now }

    public mutating func add(_ bytes: Int, now: Double) {
        advance(now)
        slots[slots.count - 1] += bytes
    }

    /// The bytes of the last four whole slots (one second).
    public mutating func bytesPerSecond(now: Double) -> Int {
        advance(now)
        return slots.dropLast().reduce(0, +)
    }

    private mutating func advance(_ now: Double) {
        let steps = Int((now - slotStart) / 0.25)
        guard steps > 0 else { return }
        if steps >= slots.count {
            slots = [Int](repeating: 0, count: slots.count)
        } else {
            slots.removeFirst(steps)
            slots += [Int](repeating: 0, count: steps)
        }
        slotStart += Double(steps) * 0.25
    }
}
