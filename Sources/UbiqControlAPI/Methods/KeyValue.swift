import Foundation
import UbiqModel

/// The params of `kv.get`.
public struct KeyValueGetParams: Hashable, Sendable, Codable {
    public var store: KeyValueStoreID
    public var key: String

    public init(store: KeyValueStoreID, key: String) {
        self.store = store
        self.key = key
    }
}

/// The result of `kv.get`: the value in property-list JSON, null when the key is absent.
public struct KeyValueGetResult: Hashable, Sendable, Codable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// The params of `kv.set`: one `key` and `value`, or several pairs in `values`, written
/// all or nothing.
public struct KeyValueSetParams: Hashable, Sendable, Codable {
    public var store: KeyValueStoreID
    public var key: String?
    public var value: JSONValue?
    public var values: [String: JSONValue]?

    public init(store: KeyValueStoreID, key: String, value: JSONValue) {
        self.store = store
        self.key = key
        self.value = value
    }

    public init(store: KeyValueStoreID, values: [String: JSONValue]) {
        self.store = store
        self.values = values
    }
}

/// The params of `kv.remove`: one `key` or several `keys`.
public struct KeyValueRemoveParams: Hashable, Sendable, Codable {
    public var store: KeyValueStoreID
    public var key: String?
    public var keys: [String]?

    public init(store: KeyValueStoreID, keys: [String]) {
        self.store = store
        self.keys = keys
    }
}

/// The result of `kv.set` and `kv.remove`: the keys written, sorted.
public struct KeyValueWriteResult: Hashable, Sendable, Codable {
    public var keys: [String]

    public init(keys: [String]) { self.keys = keys }
}

/// The params of `kv.list` and `kv.synchronize`.
public struct KeyValueStoreParams: Hashable, Sendable, Codable {
    public var store: KeyValueStoreID
    /// `kv.synchronize` only: seconds to wait for peers (default 30).
    public var timeout: Double?

    public init(store: KeyValueStoreID, timeout: Double? = nil) {
        self.store = store
        self.timeout = timeout
    }
}

/// The result of `kv.list`: every key's value, and how much of its limits the store uses.
public struct KeyValueListResult: Hashable, Sendable, Codable {
    public var store: KeyValueStoreID
    public var values: [String: JSONValue]
    public var usage: Usage
    public var limits: Limits

    public struct Usage: Hashable, Sendable, Codable {
        public var keys: Int
        public var bytes: Int

        public init(keys: Int, bytes: Int) {
            self.keys = keys
            self.bytes = bytes
        }
    }

    public struct Limits: Hashable, Sendable, Codable {
        public var maxStoreBytes: Int
        public var maxKeys: Int
        public var maxKeyBytes: Int
        public var maxValueBytes: Int

        public init(_ limits: KeyValueLimits) {
            maxStoreBytes = limits.maxStoreBytes
            maxKeys = limits.maxKeys
            maxKeyBytes = limits.maxKeyBytes
            maxValueBytes = limits.maxValueBytes
        }
    }

    public init(store: KeyValueStoreID, values: [String: JSONValue], usage: Usage, limits: Limits) {
        self.store = store
        self.values = values
        self.usage = usage
        self.limits = limits
    }
}

/// The result of `kv.synchronize`: the connected peers that hold everything this device
/// held when asked, and those that did not confirm in time (or disconnected).
public struct KeyValueSynchronizeResult: Hashable, Sendable, Codable {
    public var acknowledged: [DeviceID]
    public var pending: [DeviceID]
    public var complete: Bool

    public init(acknowledged: [DeviceID], pending: [DeviceID]) {
        self.acknowledged = acknowledged
        self.pending = pending
        self.complete = pending.isEmpty
    }
}

/// The params of `kv.subscribe`: one store, or every store when absent.
public struct KeyValueSubscribeParams: Hashable, Sendable, Codable {
    public var store: KeyValueStoreID?

    public init(store: KeyValueStoreID? = nil) { self.store = store }
}

/// The result of `kv.subscribe`: the stores now watched.
public struct KeyValueSubscribeResult: Hashable, Sendable, Codable {
    public var stores: [KeyValueStoreID]

    public init(stores: [KeyValueStoreID]) { self.stores = stores }
}

/// The params of the `kv.didChangeExternally` notification.
public struct KeyValueChangeNotice: Hashable, Sendable, Codable {
    /// `remoteChange`, `initialSyncChange`, `quotaViolationChange`, `accountChange` or `conflict`.
    public var reason: String
    public var store: KeyValueStoreID
    public var keys: [String]
    /// For `conflict`: per key, the value every device now holds and the concurrent one that lost.
    public var conflicts: [Conflict]?

    public struct Conflict: Hashable, Sendable, Codable {
        public var key: String
        /// Null for a removal.
        public var winner: JSONValue
        public var winnerDevice: DeviceID
        public var loser: JSONValue
        public var loserDevice: DeviceID

        public init(key: String, winner: JSONValue, winnerDevice: DeviceID, loser: JSONValue, loserDevice: DeviceID) {
            self.key = key
            self.winner = winner
            self.winnerDevice = winnerDevice
            self.loser = loser
            self.loserDevice = loserDevice
        }
    }

    public init(reason: String, store: KeyValueStoreID, keys: [String], conflicts: [Conflict]? = nil) {
        self.reason = reason
        self.store = store
        self.keys = keys
        self.conflicts = conflicts
    }
}

extension KeyValueSetParams {
    /// The writes these params ask for, read from JSON: either `key` and `value`, or `values`.
    public func changes() throws -> [String: PropertyListValue?] {
        var changes: [String: PropertyListValue?] = [:]
        switch (key, value, values) {
        case (let key?, let value?, nil):
            changes[key] = try PropertyListJSON.value(value)
        case (nil, nil, let values?):
            for (key, value) in values { changes[key] = try PropertyListJSON.value(value, path: "values.\(key)") }
        case (_?, nil, nil):
            throw RPCError.invalidParams("'value' is missing or null: kv.set stores a property-list value, and a null is none; kv.remove removes a key")
        default:
            throw RPCError.invalidParams("give either key and value, or values (an object of keys and values)")
        }
        return changes
    }
}
