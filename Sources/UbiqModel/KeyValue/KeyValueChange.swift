/// A change to a key-value store that did not come from this device's own writes: what
/// subscribers receive as `kv.didChangeExternally`, and what `UbiqClient` hands applications.
public struct KeyValueChange: Hashable, Sendable {
    /// Why the store changed; iCloud's reasons plus `conflict`.
    public enum Reason: String, Hashable, Sendable, CaseIterable {
        /// A peer's write replaced a value.
        case remoteChange
        /// Values that arrived in this device's first exchange with any peer.
        case initialSyncChange
        /// After merging peers' writes the store is over a limit; every device holds the same
        /// state, and writes that would make it larger are refused until it shrinks.
        case quotaViolationChange
        /// The device left one account and joined another since the store was last used:
        /// the old account's entries were dropped (`keys` lists them). Sent first to every
        /// subscription of the agent run that found the change.
        case accountChange
        /// Concurrent writes to a key: the winner is now the value on every device, the loser
        /// is reported so the application can re-assert it.
        case conflict
    }

    /// Two concurrent writes to one key (nil for a removal).
    public struct Conflict: Hashable, Sendable {
        public var key: String
        public var winner: PropertyListValue?
        public var winnerDevice: DeviceID
        public var loser: PropertyListValue?
        public var loserDevice: DeviceID

        public init(key: String, winner: PropertyListValue?, winnerDevice: DeviceID, loser: PropertyListValue?, loserDevice: DeviceID) {
            self.key = key
            self.winner = winner
            self.winnerDevice = winnerDevice
            self.loser = loser
            self.loserDevice = loserDevice
        }
    }

    public var store: KeyValueStoreID
    public var reason: Reason
    /// Sorted.
    public var keys: [String]
    /// Only for `conflict`, one per key.
    public var conflicts: [Conflict] = []

    public init(store: KeyValueStoreID, reason: Reason, keys: [String], conflicts: [Conflict] = []) {
        self.store = store
        self.reason = reason
        self.keys = keys
        self.conflicts = conflicts
    }
}
