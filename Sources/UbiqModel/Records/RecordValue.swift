/// An attribute's value: a property-list value (as the key-value store takes), or a
/// reference to another record of the same store by its entity and ID.
public enum RecordValue: Hashable, Sendable {
    case value(PropertyListValue)
    case reference(RecordKey)

    /// The bytes it counts for against ``RecordLimits``: a property list's
    /// ``PropertyListValue/byteCount``, a reference's entity and ID bytes.
    public var byteCount: Int {
        switch self {
        case .value(let value): value.byteCount
        case .reference(let key): key.entity.rawValue.utf8.count + key.id.rawValue.utf8.count
        }
    }
}
