/// The size limits a key-value store enforces, by default those of iCloud's
/// `NSUbiquitousKeyValueStore`. Sizes are ``PropertyListValue/byteCount``.
public struct KeyValueLimits: Hashable, Sendable {
    /// The sum of all values' sizes.
    public var maxStoreBytes: Int
    public var maxKeys: Int
    /// A key's UTF-8 bytes.
    public var maxKeyBytes: Int
    public var maxValueBytes: Int

    public init(maxStoreBytes: Int, maxKeys: Int, maxKeyBytes: Int, maxValueBytes: Int) {
        self.maxStoreBytes = maxStoreBytes
        self.maxKeys = maxKeys
        self.maxKeyBytes = maxKeyBytes
        self.maxValueBytes = maxValueBytes
    }

    /// 1 MB per store, 1024 keys, 64-byte keys, 1 MB values.
    public static let iCloud = KeyValueLimits(maxStoreBytes: 1_000_000, maxKeys: 1024, maxKeyBytes: 64, maxValueBytes: 1_000_000)

    /// The highest limits a configuration may set: a value must fit in one peer message and
    /// one control-socket line (base64 makes data a third larger), and `kv.list` answers
    /// with the whole store on one line.
    public static let ceiling = KeyValueLimits(maxStoreBytes: 4 << 20, maxKeys: 100_000, maxKeyBytes: 4096, maxValueBytes: 4 << 20)

    /// How much of the limits a store's live values use.
    public struct Usage: Hashable, Sendable {
        public var keys: Int
        public var bytes: Int

        public init(keys: Int, bytes: Int) {
            self.keys = keys
            self.bytes = bytes
        }

        public init(_ values: some Sequence<PropertyListValue>) {
            keys = 0
            bytes = 0
            for value in values {
                keys += 1
                bytes += value.byteCount
            }
        }
    }

    public func exceeds(_ usage: Usage) -> Bool { usage.keys > maxKeys || usage.bytes > maxStoreBytes }

    /// Checks a write of several keys (nil removes) against a store whose live values are
    /// `current`, all or nothing. A store already over its quota (concurrent writes from
    /// several devices can do that) still takes writes that do not make it larger.
    public func check(_ changes: [String: PropertyListValue?], current: [String: PropertyListValue]) throws(KeyValueLimitError) {
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            if key.isEmpty { throw KeyValueLimitError(.invalidKey, "a key may not be empty") }
            let keyBytes = key.utf8.count
            if keyBytes > maxKeyBytes {
                throw KeyValueLimitError(.keyTooLong, "the key '\(key.prefix(80))' has \(keyBytes) UTF-8 bytes; the limit is \(maxKeyBytes)")
            }
            if let value, value.byteCount > maxValueBytes {
                throw KeyValueLimitError(.valueTooLarge,
                                         "the value of '\(key)' takes \(value.byteCount) bytes; the limit is \(maxValueBytes)")
            }
        }
        let before = Usage(current.values)
        var after = current
        for (key, value) in changes { after[key] = value }
        let usage = Usage(after.values)
        if usage.keys > maxKeys && usage.keys > before.keys {
            throw KeyValueLimitError(.tooManyKeys,
                                     "the store would hold \(usage.keys) keys; the limit is \(maxKeys). Remove keys first")
        }
        if usage.bytes > maxStoreBytes && usage.bytes > before.bytes {
            throw KeyValueLimitError(.storeTooLarge,
                                     "the store's values would take \(usage.bytes) bytes; the limit is \(maxStoreBytes). Remove or shrink values first")
        }
    }
}

/// A key-value write refused for a limit; nothing of it was written.
public struct KeyValueLimitError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidKey, keyTooLong, valueTooLarge, tooManyKeys, storeTooLarge
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
