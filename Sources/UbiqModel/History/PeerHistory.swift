/// What one peer's history keeps of a container, as it answered when asked: the versions
/// under the path asked about (their chunk lists may be left out), whether it keeps more than
/// it sent, and since when it keeps them.
public struct PeerHistory: Sendable, Hashable {
    public var device: DeviceID
    public var entries: [HistoryEntry]
    public var truncated: Bool
    /// When its history of the container starts, in ms since 1970; nil when it keeps none.
    public var since: Int64?

    public init(device: DeviceID, entries: [HistoryEntry], truncated: Bool = false, since: Int64?) {
        self.device = device
        self.entries = entries
        self.truncated = truncated
        self.since = since
    }
}
