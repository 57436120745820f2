import UbiqModel

/// A container's history on this device: whether replaced and deleted versions are kept, and
/// for how long (`history`, `history_max_age_days`, `history_max_disk_percent`).
public struct HistorySettings: Hashable, Sendable {
    public var enabled: Bool
    /// Versions older than this many days go.
    public var maximumAgeDays: Int
    /// Past this share of the file system's size the oldest versions go.
    public var maximumDiskPercent: Int

    public init(enabled: Bool = true, maximumAgeDays: Int = 365, maximumDiskPercent: Int = 10) {
        self.enabled = enabled
        self.maximumAgeDays = maximumAgeDays
        self.maximumDiskPercent = maximumDiskPercent
    }

    /// The retention for a container on a file system of `fileSystemBytes` (nil: unknown, no
    /// cap); nil when history is off.
    public func retention(fileSystemBytes: UInt64?) -> HistoryRetention? {
        guard enabled else { return nil }
        return HistoryRetention(maximumAge: Int64(maximumAgeDays) * HistoryRetention.day,
                                diskCap: fileSystemBytes.map { $0 / 100 * UInt64(maximumDiskPercent) })
    }
}
