import Foundation
import UbiqModel

/// The conversions behind ``UbiquitousKeyValueStore``'s typed getters, with iCloud's rules:
/// a number read as another kind of number converts (a double read as an integer is
/// truncated toward zero, a bool is 0 or 1), and anything else reads as absent.
extension PropertyListValue {
    public init(_ date: Date) { self = .date(secondsSince1970: date.timeIntervalSince1970) }
    public init(_ data: Data) { self = .data(Array(data)) }

    public var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// Integers as they are, doubles truncated toward zero (nil when out of range or not a
    /// number), bools as 0 or 1.
    public var int64Value: Int64? {
        switch self {
        case .integer(let number): number
        case .double(let number): Int64(exactly: number.rounded(.towardZero))
        case .bool(let flag): flag ? 1 : 0
        default: nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .double(let number): number
        case .integer(let number): Double(number)
        case .bool(let flag): flag ? 1 : 0
        default: nil
        }
    }

    /// Bools as they are, numbers as "not zero".
    public var boolValue: Bool? {
        switch self {
        case .bool(let flag): flag
        case .integer(let number): number != 0
        case .double(let number): number != 0
        default: nil
        }
    }

    public var dataValue: Data? {
        if case .data(let bytes) = self { Data(bytes) } else { nil }
    }

    public var dateValue: Date? {
        if case .date(let seconds) = self { Date(timeIntervalSince1970: seconds) } else { nil }
    }

    public var arrayValue: [PropertyListValue]? {
        if case .array(let values) = self { values } else { nil }
    }

    public var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let values) = self { values } else { nil }
    }
}
