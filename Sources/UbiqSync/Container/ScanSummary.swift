/// What a rescan looked at and recorded, for `container.rescan`.
public struct ScanSummary: Sendable, Equatable {
    /// Entries found on disk.
    public var seen: Int
    /// Entries whose change was recorded in the index.
    public var changed: Int
}

/// A rescan could not start: a client holds a write lease on part of the container. The
/// agent rescans when the lease ends; a caller may try again.
public struct ScanBusy: Error, Sendable, CustomStringConvertible {
    public let roots: [String]
    public var description: String {
        "a client holds a write lease under \(roots.joined(separator: ", ")); try again when it is released"
    }
}
