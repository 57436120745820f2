/// Which kept versions retention lets go: staggered like Syncthing's versioning (every version
/// for the first hour, then one per hour for a day, one per day for 30 days, one per week up
/// to the maximum age), then the oldest first while the history is over its disk cap.
///
/// Spacing is counted from the oldest version kept, so a version that survives one pruning
/// survives the next until it ages into a wider interval: pruning twice prunes no more.
/// (Syncthing's "staggered file versioning", docs.syncthing.net/users/versioning.html.)
public struct HistoryRetention: Hashable, Sendable {
    /// Versions older than this go, in milliseconds.
    public var maximumAge: Int64
    /// The history's size past which the oldest versions go, in bytes; nil: no cap.
    public var diskCap: UInt64?

    public static let hour: Int64 = 3_600_000
    public static let day: Int64 = 24 * hour
    public static let week: Int64 = 7 * day

    public init(maximumAge: Int64 = 365 * HistoryRetention.day, diskCap: UInt64? = nil) {
        self.maximumAge = maximumAge
        self.diskCap = diskCap
    }

    /// The smallest spacing between kept versions of one path at `age` milliseconds; nil past
    /// the maximum age.
    public func spacing(atAge age: Int64) -> Int64? {
        guard age < maximumAge else { return nil }
        switch age {
        case ..<Self.hour: return 0
        case ..<Self.day: return Self.hour
        case ..<(30 * Self.day): return Self.day
        default: return Self.week
        }
    }

    /// The ids of the entries whose content is the current item's at their path (`current`,
    /// by path) or one of its conflict versions': each may be the only copy, so pruning keeps it.
    public static func protected(_ entries: [HistoryEntry], current: [RelativePath: Item]) -> Set<Int64> {
        Set(entries.filter { entry in
            guard let item = current[entry.path] else { return false }
            let content = entry.item.chunks.map(\.hash)
            return (!item.deleted && item.chunks.map(\.hash) == content) || item.conflicts.contains { $0.chunks.map(\.hash) == content }
        }.map(\.id))
    }

    /// The ids of the entries to remove at `now` (ms since 1970). `protected` entries stay
    /// whatever their age (the only copy of a current or conflict version); they still count
    /// towards the cap.
    public func prune(_ entries: [HistoryEntry], now: Int64, protected: Set<Int64> = []) -> Set<Int64> {
        var removed = Set<Int64>()
        for (_, versions) in Dictionary(grouping: entries, by: \.path) {
            var lastKept: Int64?
            for entry in versions.sorted(by: { ($0.keptAt, $0.id) < ($1.keptAt, $1.id) }) {
                let age = now - entry.keptAt
                guard !protected.contains(entry.id) else {
                    lastKept = entry.keptAt
                    continue
                }
                guard let spacing = spacing(atAge: age) else {
                    removed.insert(entry.id)
                    continue
                }
                if let last = lastKept, entry.keptAt - last < spacing {
                    removed.insert(entry.id)
                } else {
                    lastKept = entry.keptAt
                }
            }
        }
        guard let diskCap else { return removed }
        var size = entries.reduce(UInt64(0)) { removed.contains($1.id) ? $0 : $0 + $1.item.size }
        for entry in entries.sorted(by: { ($0.keptAt, $0.id) < ($1.keptAt, $1.id) }) where size > diskCap {
            guard !removed.contains(entry.id), !protected.contains(entry.id) else { continue }
            removed.insert(entry.id)
            size -= entry.item.size
        }
        return removed
    }
}
