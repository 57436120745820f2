/// One key of a key-value store as a device holds it: the value (nil once removed, a
/// tombstone that replicates like a write), who wrote it, and when, causally and by clock.
public struct KeyValueEntry: Hashable, Sendable {
    public var key: String
    public var value: PropertyListValue?
    public var version: VersionVector
    /// The version at which `value` was written. It trails `version` after a merge (the
    /// merged vector has seen the losing write too), and tells a device that receives a
    /// merged entry whether its own value was overwritten knowingly or lost a conflict.
    public var valueVersion: VersionVector
    public var timestamp: HybridTimestamp
    public var modifiedBy: DeviceID

    public init(key: String, value: PropertyListValue?, version: VersionVector, valueVersion: VersionVector? = nil,
                timestamp: HybridTimestamp, modifiedBy: DeviceID) {
        self.key = key
        self.value = value
        self.version = version
        self.valueVersion = valueVersion ?? version
        self.timestamp = timestamp
        self.modifiedBy = modifiedBy
    }

    public var isRemoved: Bool { value == nil }

    /// Whether this write wins over a concurrent `other`: the later timestamp, ties to the
    /// larger device ID. Every device picks the same one (DESIGN.md §3).
    public func wins(over other: KeyValueEntry) -> Bool {
        if timestamp != other.timestamp { return timestamp > other.timestamp }
        return modifiedBy > other.modifiedBy
    }
}

/// What a device does with a peer's entry for a key it may also hold.
public enum KeyValueReconciliation: Sendable, Equatable {
    /// Ours is the same or causally newer; the peer will catch up.
    case keepLocal
    /// Theirs is causally newer: it replaces ours.
    case applyRemote(KeyValueEntry)
    /// Concurrent writes. `merged` (the winner's value under both vectors' maximum, with no
    /// new increment) is what every device stores; `loser` is reported to the application.
    /// Also the answer when a peer's entry is a merge that already settled a conflict
    /// against the local value: then `merged` is the peer's entry.
    case conflict(merged: KeyValueEntry, winner: KeyValueEntry, loser: KeyValueEntry)

    public static func reconcile(local: KeyValueEntry?, remote: KeyValueEntry) -> KeyValueReconciliation {
        guard let local else { return .applyRemote(remote) }
        switch local.version.compare(to: remote.version) {
        case .dominates:
            return .keepLocal
        case .dominated:
            if remote.valueVersion.compare(to: local.valueVersion) == .concurrent {
                return .conflict(merged: remote, winner: remote, loser: local)
            }
            return .applyRemote(remote)
        case .equal:
            // The same write seen twice; a different payload under the same vector can only
            // come from a broken peer, and still resolves alike everywhere.
            return remote.wins(over: local) && remote != local ? .applyRemote(remote) : .keepLocal
        case .concurrent:
            let winner = remote.wins(over: local) ? remote : local
            let loser = winner == remote ? local : remote
            var merged = winner
            merged.version = local.version.merged(with: remote.version)
            return .conflict(merged: merged, winner: winner, loser: loser)
        }
    }
}

/// A key-value store's identifier (the kvstore identifier of config and API). It has the
/// form of a container identifier, `TEAMID.com.example.app`.
public typealias KeyValueStoreID = ContainerID
