import UbiqControlAPI
import UbiqModel

extension UbiquitousKeyValueStore {
    /// A change of the store that came from another device: what
    /// ``UbiquitousKeyValueStore/externalChanges()`` yields, with the values typed.
    public struct ExternalChange: Hashable, Sendable {
        /// iCloud's change reasons, plus `conflict`.
        public enum Reason: String, Hashable, Sendable, CaseIterable {
            /// A peer's write replaced or removed values.
            case remoteChange
            /// Values from the first entries this device took in for the store.
            case initialSyncChange
            /// After merging peers' writes the store is over a limit; writes that would make
            /// it larger are refused until it shrinks.
            case quotaViolationChange
            /// The device changed accounts; the old account's values (`keys`) are gone.
            case accountChange
            /// Concurrent writes to a key; ``ExternalChange/conflicts`` has both values.
            case conflict
        }

        /// Two concurrent writes to one key: the value every device now holds and the one
        /// that lost (nil for a removal), so the application can re-assert it.
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

        public var reason: Reason
        public var store: KeyValueStoreID
        /// The keys concerned, sorted.
        public var keys: [String]
        /// Empty unless `reason` is `conflict`.
        public var conflicts: [Conflict]

        public init(reason: Reason, store: KeyValueStoreID, keys: [String], conflicts: [Conflict] = []) {
            self.reason = reason
            self.store = store
            self.keys = keys
            self.conflicts = conflicts
        }

        /// The typed form of a `kv.didChangeExternally` notice. A reason this client does not
        /// know (from a newer agent) reads as `remoteChange`: values changed, read them again.
        public init(_ notice: KeyValueChangeNotice) throws {
            reason = Reason(rawValue: notice.reason) ?? .remoteChange
            store = notice.store
            keys = notice.keys
            conflicts = try (notice.conflicts ?? []).map { conflict in
                Conflict(key: conflict.key, winner: try Self.value(conflict.winner, key: conflict.key),
                         winnerDevice: conflict.winnerDevice,
                         loser: try Self.value(conflict.loser, key: conflict.key), loserDevice: conflict.loserDevice)
            }
        }

        private static func value(_ json: JSONValue, key: String) throws -> PropertyListValue? {
            guard !json.isNull else { return nil }
            do { return try PropertyListJSON.value(json, path: key) } catch {
                throw UbiqClientError(.invalidResponse, "the agent sent a conflict value this client cannot read: \(error.message)")
            }
        }
    }
}
