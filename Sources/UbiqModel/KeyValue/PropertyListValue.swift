/// A value of the key-value store: the property-list types iCloud's key-value store takes
/// (DESIGN.md §1). Integers and doubles are distinct cases, so `1` and `1.0` stay what the
/// application wrote.
public indirect enum PropertyListValue: Hashable, Sendable {
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    /// A point in time as seconds since 1970-01-01 UTC; the control protocol shows it with
    /// milliseconds.
    case date(secondsSince1970: Double)
    case data([UInt8])
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// The bytes the value counts for against the store's limits: a string's and a key's
    /// UTF-8 bytes, data's bytes, 8 for a number or date, 1 for a bool; containers add up
    /// their elements. The same on every device, so quota decisions agree.
    public var byteCount: Int {
        switch self {
        case .bool: 1
        case .integer, .double, .date: 8
        case .string(let string): string.utf8.count
        case .data(let bytes): bytes.count
        case .array(let values): values.reduce(0) { $0 + $1.byteCount }
        case .dictionary(let values): values.reduce(0) { $0 + $1.key.utf8.count + $1.value.byteCount }
        }
    }

    /// A short name of the value's type for messages and listings.
    public var typeName: String {
        switch self {
        case .bool: "bool"
        case .integer: "integer"
        case .double: "double"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}
