/// A hybrid-logical-clock timestamp: wall-clock milliseconds plus a logical counter.
///
/// Kulkarni, Demirbas et al., "Logical Physical Clocks and Consistent Snapshots in Globally
/// Distributed Databases" (2014): timestamps stay close to physical time, yet a write made
/// after seeing another always carries a larger timestamp, whatever the wall clocks say.
public struct HybridTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 UTC.
    public var wall: Int64
    public var logical: UInt32

    public init(wall: Int64, logical: UInt32) {
        self.wall = wall
        self.logical = logical
    }

    public static let zero = HybridTimestamp(wall: 0, logical: 0)

    public static func < (a: HybridTimestamp, b: HybridTimestamp) -> Bool {
        (a.wall, a.logical) < (b.wall, b.logical)
    }

    public var description: String { "\(wall).\(logical)" }
}

/// The clock a device stamps its key-value writes with; the caller supplies physical time,
/// so the rules are testable and a test can run a device an hour behind.
public struct HybridClock: Sendable, Equatable {
    public private(set) var last: HybridTimestamp
    /// How far ahead of our own physical clock a peer's timestamp may pull ours. A peer
    /// whose clock is wildly wrong (or hostile) cannot drag every later write into the
    /// future; its own entries still compare by their own timestamps.
    public static let maxDrift: Int64 = 24 * 3600 * 1000

    public init(last: HybridTimestamp = .zero) { self.last = last }

    /// The timestamp for a local write at physical time `now` (milliseconds).
    public mutating func tick(now: Int64) -> HybridTimestamp {
        if now > last.wall {
            last = HybridTimestamp(wall: now, logical: 0)
        } else {
            advanceLogical()
        }
        return last
    }

    /// Takes in a timestamp seen on a peer's entry, so later local writes order after it.
    public mutating func observe(_ remote: HybridTimestamp, now: Int64) {
        var remote = remote
        if remote.wall > now &+ Self.maxDrift { remote = HybridTimestamp(wall: now &+ Self.maxDrift, logical: 0) }
        let wall = max(last.wall, remote.wall, now)
        if wall == last.wall && wall == remote.wall {
            last.logical = max(last.logical, remote.logical)
            advanceLogical()
        } else if wall == last.wall {
            advanceLogical()
        } else if wall == remote.wall {
            last = remote
            advanceLogical()
        } else {
            last = HybridTimestamp(wall: wall, logical: 0)
        }
    }

    private mutating func advanceLogical() {
        if last.logical == .max {
            last = HybridTimestamp(wall: last.wall &+ 1, logical: 0)
        } else {
            last.logical += 1
        }
    }
}
