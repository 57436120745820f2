/// The size limits a key-value store enforces, by default those of iCloud's
/// `NSUbiquitousKeyValueStore`.
public struct KeyValueLimits: Hashable, Sendable {
    public var maxStoreBytes: Int
    public var maxKeys: Int
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
}
