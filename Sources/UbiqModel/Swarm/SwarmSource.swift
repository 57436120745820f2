/// A connected peer a file's chunks may come from, and what it is known to hold of the
/// version wanted: the input ``SwarmPlan`` decides from.
public struct SwarmSource: Sendable, Equatable {
    /// What a peer holds of the version.
    public enum Holding: Sendable, Equatable {
        /// The whole version: its index lists it.
        case all
        /// These bytes, verified: what it announced while it assembles the version too.
        case some(RangeSet<UInt64>)
        /// Nothing known: it may hold the chunks in other files, and is asked last.
        case unknown
    }

    public var device: DeviceID
    public var holding: Holding
    /// What it said it has asked for and does not hold yet: pieces it will hold soon, which
    /// make a run less rare but cannot be fetched from it.
    public var claimed: RangeSet<UInt64>
    /// A request to it timed out lately: asked after the others.
    public var stalled: Bool

    public init(device: DeviceID, holding: Holding, claimed: RangeSet<UInt64> = RangeSet(), stalled: Bool = false) {
        self.device = device
        self.holding = holding
        self.claimed = claimed
        self.stalled = stalled
    }

    /// Whether it is known to hold all of `range`.
    func holds(_ range: Range<UInt64>) -> Bool {
        switch holding {
        case .all: true
        case .some(let ranges): ranges.covers(range)
        case .unknown: false
        }
    }

    /// Whether it holds `range` or will soon: a holder as rarity counts.
    func holdsOrClaims(_ range: Range<UInt64>) -> Bool { holds(range) || claimed.covers(range) }
}

extension RangeSet<UInt64> {
    /// Whether one of its ranges holds all of `range` (its ranges are sorted and apart).
    public func covers(_ range: Range<UInt64>) -> Bool {
        let all = ranges
        var (low, high) = (all.startIndex, all.endIndex)
        while low < high {
            let middle = low + (high - low) / 2
            if all[middle].upperBound <= range.lowerBound { low = middle + 1 } else { high = middle }
        }
        return low < all.endIndex && all[low].lowerBound <= range.lowerBound && range.upperBound <= all[low].upperBound
    }
}
