import Foundation
import UbiqModel

/// Property-list values in the control protocol's JSON (DESIGN.md §5): JSON's own types,
/// integers and doubles kept apart, and `{"$data": base64}` and `{"$date": ISO-8601}` for
/// the two types JSON lacks. JSON `null` is no property-list value (remove the key instead).
/// A dictionary whose only key is `$data` or `$date` cannot be written.
public enum PropertyListJSON {
    public static func json(_ value: PropertyListValue) -> JSONValue {
        switch value {
        case .bool(let flag): .bool(flag)
        case .integer(let number): .integer(number)
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        case .date(let seconds): ["$date": .string(dateString(seconds))]
        case .data(let bytes): ["$data": .string(Data(bytes).base64EncodedString())]
        case .array(let values): .array(values.map(json))
        case .dictionary(let values): .object(values.mapValues(json))
        }
    }

    /// The value a client sent; `path` names it in errors (`values.score[2]`).
    public static func value(_ json: JSONValue, path: String = "value") throws(RPCError) -> PropertyListValue {
        switch json {
        case .null:
            throw .invalidParams("\(path) is null, which is no property-list value; remove the key with kv.remove instead")
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .double(let number):
            guard number.isFinite else { throw .invalidParams("\(path) is not a finite number") }
            return .double(number)
        case .string(let text): return .string(text)
        case .array(let values):
            var result: [PropertyListValue] = []
            result.reserveCapacity(values.count)
            for (position, element) in values.enumerated() { result.append(try value(element, path: "\(path)[\(position)]")) }
            return .array(result)
        case .object(let members):
            if members.count == 1, let (key, inner) = members.first {
                switch key {
                case "$data":
                    guard let text = inner.stringValue, let bytes = Data(base64Encoded: text) else {
                        throw .invalidParams("\(path).$data is not a base64 string")
                    }
                    return .data(Array(bytes))
                case "$date":
                    guard let text = inner.stringValue, let seconds = seconds(text) else {
                        throw .invalidParams("\(path).$date is not an ISO-8601 date such as 2026-11-22T09:15:02.517Z")
                    }
                    return .date(secondsSince1970: seconds)
                default:
                    break
                }
            }
            var result: [String: PropertyListValue] = [:]
            for (key, inner) in members { result[key] = try value(inner, path: "\(path).\(key)") }
            return .dictionary(result)
        }
    }

    /// ISO-8601 in UTC with milliseconds, the protocol's date form.
    static func dateString(_ seconds: Double) -> String {
        let milliseconds = (seconds * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e17 else { return seconds < 0 ? "0001-01-01T00:00:00.000Z" : "9999-12-31T23:59:59.999Z" }
        let whole = Int64(milliseconds)
        let (secondsPart, fraction) = whole.quotientAndRemainder(dividingBy: 1000)
        let adjusted = fraction < 0 ? (secondsPart - 1, fraction + 1000) : (secondsPart, fraction)
        // The formatter truncates fractions (….123 may print as ….122), so whole seconds
        // come from it and the milliseconds are written here.
        let base = Date(timeIntervalSince1970: Double(adjusted.0)).formatted(Date.ISO8601FormatStyle())
        return base.dropLast() + "." + String(String(adjusted.1 + 1000).dropFirst()) + "Z"
    }

    /// Seconds since 1970 from an ISO-8601 date with or without a fraction (any number of
    /// digits) and with `Z` or an offset.
    static func seconds(_ text: String) -> Double? {
        guard let dot = text.firstIndex(of: ".") else {
            return ControlDateFormat.date(from: text)?.timeIntervalSince1970
        }
        let digits = text[text.index(after: dot)...].prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        let rest = text[digits.endIndex...]
        guard let whole = ControlDateFormat.date(from: String(text[..<dot]) + rest) else { return nil }
        return whole.timeIntervalSince1970 + Double("0." + digits)!
    }
}
