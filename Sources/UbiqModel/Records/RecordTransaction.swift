/// One transaction of one device: the `counter`th in its store, as written by `author`.
/// Two transactions are concurrent when neither's version covers the other's dot.
public struct RecordDot: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var device: DeviceID
    public var counter: UInt64

    public init(device: DeviceID, counter: UInt64) {
        self.device = device
        self.counter = counter
    }

    public var description: String { "\(device):\(counter)" }
    public static func < (a: Self, b: Self) -> Bool { (a.device, a.counter) < (b.device, b.counter) }
}

/// One change to one record, as a client saves it.
public enum RecordChange: Hashable, Sendable {
    /// A new record (or one deleted before, brought back) with these attributes.
    case insert(RecordKey, attributes: [RecordName: RecordValue])
    /// Sets some attributes of a record (`nil`: removes the attribute); the others stay.
    case update(RecordKey, attributes: [RecordName: RecordValue?])
    case delete(RecordKey)

    public var key: RecordKey {
        switch self {
        case .insert(let key, _), .update(let key, _), .delete(let key): key
        }
    }

    /// The bytes it counts for against ``RecordLimits/maxTransactionBytes``: the record's
    /// key, and each attribute's name and value.
    public var byteCount: Int {
        let key = self.key.entity.rawValue.utf8.count + self.key.id.rawValue.utf8.count
        switch self {
        case .insert(_, let attributes): return key + attributes.reduce(0) { $0 + $1.key.rawValue.utf8.count + $1.value.byteCount }
        case .update(_, let attributes): return key + attributes.reduce(0) { $0 + $1.key.rawValue.utf8.count + ($1.value?.byteCount ?? 0) }
        case .delete: return key
        }
    }
}

/// A saved transaction: what one change-log file holds. All of it is applied, or none.
///
/// `version` is what the author had imported when it saved, with this transaction's own dot:
/// it says which transactions this one has seen (causality). `clock` is the author's hybrid
/// clock, later than that of every transaction it has seen (``RecordLog`` checks), so the
/// order by clock, then author, is causal and the same on every device.
public struct RecordTransaction: Hashable, Sendable {
    public var store: RecordStoreName
    public var author: DeviceID
    public var version: VersionVector
    public var clock: HybridTimestamp
    public var changes: [RecordChange]

    public init(store: RecordStoreName, author: DeviceID, version: VersionVector, clock: HybridTimestamp, changes: [RecordChange]) {
        self.store = store
        self.author = author
        self.version = version
        self.clock = clock
        self.changes = changes
    }

    public var counter: UInt64 { version[author] }
    public var dot: RecordDot { RecordDot(device: author, counter: counter) }

    /// Whether this transaction was made after seeing `dot`'s.
    public func covers(_ dot: RecordDot) -> Bool { version[dot.device] >= dot.counter }

    /// The order every device imports in, and in which concurrent writes win: clock, then
    /// author.
    public static func importsBefore(_ a: Self, _ b: Self) -> Bool {
        (a.clock, a.author, a.counter) < (b.clock, b.author, b.counter)
    }

    /// Checks what a transaction must be, whoever made it: its own dot in its version, each
    /// record changed once, within `limits`.
    public func validate(limits: RecordLimits = .default) throws(RecordError) {
        guard counter > 0 else { throw RecordError(.invalidLog, "transaction of \(author) does not count itself in its version") }
        guard !changes.isEmpty else { throw RecordError(.invalidTransaction, "a transaction changes at least one record") }
        guard changes.count <= limits.maxChanges else {
            throw RecordError(.tooLarge, "a transaction changes at most \(limits.maxChanges) records; this one changes \(changes.count): save it in parts")
        }
        var keys = Set<RecordKey>()
        var bytes = 0
        for change in changes {
            guard keys.insert(change.key).inserted else {
                throw RecordError(.invalidTransaction, "record \(change.key) is changed twice in one transaction: combine the changes")
            }
            try limits.check(change)
            bytes += change.byteCount
        }
        guard bytes <= limits.maxTransactionBytes else {
            throw RecordError(.tooLarge, "a transaction holds at most \(limits.maxTransactionBytes) bytes; this one holds \(bytes): save it in parts")
        }
    }
}
