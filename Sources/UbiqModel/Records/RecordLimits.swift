/// How large a transaction may be, so that one log file stays small enough to move, parse
/// and apply in one go (docs/control-protocol.md lists them).
public struct RecordLimits: Hashable, Sendable {
    /// Records one transaction may change.
    public var maxChanges: Int
    /// Attributes one change may set.
    public var maxAttributes: Int
    /// Bytes of one attribute's value (``RecordValue/byteCount``).
    public var maxValueBytes: Int
    /// Bytes of a whole transaction (``RecordChange/byteCount`` summed).
    public var maxTransactionBytes: Int

    public init(maxChanges: Int, maxAttributes: Int, maxValueBytes: Int, maxTransactionBytes: Int) {
        self.maxChanges = maxChanges
        self.maxAttributes = maxAttributes
        self.maxValueBytes = maxValueBytes
        self.maxTransactionBytes = maxTransactionBytes
    }

    public static let `default` = RecordLimits(maxChanges: 10_000, maxAttributes: 256, maxValueBytes: 1 << 20, maxTransactionBytes: 4 << 20)

    func check(_ change: RecordChange) throws(RecordError) {
        let values: [RecordName: RecordValue?]
        switch change {
        case .insert(_, let attributes): values = attributes.mapValues { $0 }
        case .update(_, let attributes): values = attributes
        case .delete: return
        }
        guard values.count <= maxAttributes else {
            throw RecordError(.tooLarge, "a change sets at most \(maxAttributes) attributes; \(change.key)'s sets \(values.count)")
        }
        for (name, value) in values where (value?.byteCount ?? 0) > maxValueBytes {
            throw RecordError(.tooLarge, "attribute \(name) of \(change.key) holds more than \(maxValueBytes) bytes")
        }
    }
}
