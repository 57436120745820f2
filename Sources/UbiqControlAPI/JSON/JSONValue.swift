/// Any JSON value, as the control protocol carries it in params, results and notifications.
///
/// Integers and doubles are separate cases because property-list values (DESIGN.md §5) keep
/// that distinction: a number written without fraction or exponent parses as `.integer`.
/// Objects are unordered; ``serialized(pretty:)`` writes keys sorted so output is stable.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    public var isNull: Bool { if case .null = self { true } else { false } }

    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }

    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }

    /// The number as a double, whichever case holds it.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }

    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }

    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// The member `key` of an object, nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// A short name of the value's type for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { serialized() }
}
