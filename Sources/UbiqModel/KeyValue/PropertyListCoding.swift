/// The one binary form of a ``PropertyListValue``, used in the index and on the wire.
///
/// Canonical: a value has exactly one encoding (dictionary keys sorted by their UTF-8
/// bytes), so equal values are equal bytes on every device. The decoder takes bytes from
/// peers: it checks every length against what is left, bounds nesting, validates UTF-8,
/// and refuses trailing bytes, duplicate or unsorted keys, and numbers that are not finite.
///
/// Layout: one tag byte, then `false`/`true` nothing; integer 8 bytes big-endian two's
/// complement; double and date 8 bytes of the IEEE-754 bit pattern, big-endian; string and
/// data a LEB128 length then the bytes; array a LEB128 count then the elements; dictionary
/// a LEB128 count then (LEB128 key length, key, value) pairs.
public enum PropertyListCoding {
    /// Deeper nesting is refused, so a hostile value cannot exhaust the stack.
    public static let maxDepth = 64

    enum Tag: UInt8 {
        case `false` = 1, `true`, integer, double, string, date, data, array, dictionary
    }

    public static func encode(_ value: PropertyListValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(value.byteCount + 16)
        append(value, to: &out)
        return out
    }

    public static func decode(_ bytes: some Collection<UInt8>) throws(PropertyListDecodingError) -> PropertyListValue {
        var reader = Reader(bytes: Array(bytes))
        let value = try reader.value(depth: 0)
        guard reader.position == reader.bytes.count else {
            throw PropertyListDecodingError("\(reader.bytes.count - reader.position) bytes after the value")
        }
        return value
    }

    private static func append(_ value: PropertyListValue, to out: inout [UInt8]) {
        switch value {
        case .bool(let flag):
            out.append((flag ? Tag.true : Tag.false).rawValue)
        case .integer(let number):
            out.append(Tag.integer.rawValue)
            appendFixed(UInt64(bitPattern: number), to: &out)
        case .double(let number):
            out.append(Tag.double.rawValue)
            appendFixed(number.bitPattern, to: &out)
        case .date(let seconds):
            out.append(Tag.date.rawValue)
            appendFixed(seconds.bitPattern, to: &out)
        case .string(let string):
            out.append(Tag.string.rawValue)
            appendBytes(Array(string.utf8), to: &out)
        case .data(let bytes):
            out.append(Tag.data.rawValue)
            appendBytes(bytes, to: &out)
        case .array(let values):
            out.append(Tag.array.rawValue)
            appendLength(values.count, to: &out)
            for element in values { append(element, to: &out) }
        case .dictionary(let values):
            out.append(Tag.dictionary.rawValue)
            appendLength(values.count, to: &out)
            for (key, element) in values.map({ (Array($0.key.utf8), $0.value) }).sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
                appendBytes(key, to: &out)
                append(element, to: &out)
            }
        }
    }

    private static func appendFixed(_ number: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
    }

    private static func appendLength(_ length: Int, to out: inout [UInt8]) {
        var rest = UInt64(length)
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    private static func appendBytes(_ bytes: [UInt8], to out: inout [UInt8]) {
        appendLength(bytes.count, to: &out)
        out.append(contentsOf: bytes)
    }

    private struct Reader {
        /// The most elements reserved ahead of a count: nested counts each claiming all the
        /// bytes left would otherwise reserve 8 bytes per input byte at each of 64 levels.
        static let reservedElements = 1024

        let bytes: [UInt8]
        var position = 0

        var remaining: Int { bytes.count - position }

        mutating func value(depth: Int) throws(PropertyListDecodingError) -> PropertyListValue {
            guard depth < PropertyListCoding.maxDepth else {
                throw PropertyListDecodingError("nested deeper than \(PropertyListCoding.maxDepth) levels")
            }
            guard remaining > 0 else { throw PropertyListDecodingError("the value ends early") }
            let raw = bytes[position]
            position += 1
            guard let tag = Tag(rawValue: raw) else { throw PropertyListDecodingError("unknown type tag \(raw)") }
            switch tag {
            case .false: return .bool(false)
            case .true: return .bool(true)
            case .integer: return .integer(Int64(bitPattern: try fixed()))
            case .double: return .double(try finite("a double"))
            case .date: return .date(secondsSince1970: try finite("a date"))
            case .string: return .string(try string())
            case .data: return .data(try slice(length()))
            case .array:
                // Every element takes at least one byte, so a count above what is left is a lie.
                let count = try length()
                var values: [PropertyListValue] = []
                values.reserveCapacity(min(count, Self.reservedElements))
                for _ in 0..<count { values.append(try value(depth: depth + 1)) }
                return .array(values)
            case .dictionary:
                let count = try length()
                var values: [String: PropertyListValue] = [:]
                values.reserveCapacity(min(count, Self.reservedElements))
                var previous: [UInt8]?
                for _ in 0..<count {
                    let key = try slice(length())
                    if let previous, !previous.lexicographicallyPrecedes(key) {
                        throw PropertyListDecodingError("dictionary keys are repeated or out of order")
                    }
                    previous = key
                    guard let text = String(validating: key, as: UTF8.self) else {
                        throw PropertyListDecodingError("a dictionary key is not UTF-8")
                    }
                    guard values[text] == nil else {
                        throw PropertyListDecodingError("dictionary key '\(text.prefix(80))' repeats as equivalent Unicode text")
                    }
                    values[text] = try value(depth: depth + 1)
                }
                return .dictionary(values)
            }
        }

        /// No client can write infinity or NaN (JSON has neither), and NaN equals nothing,
        /// so a peer's is refused rather than stored.
        mutating func finite(_ what: String) throws(PropertyListDecodingError) -> Double {
            let number = Double(bitPattern: try fixed())
            guard number.isFinite else { throw PropertyListDecodingError("\(what) is \(number), not a finite number") }
            return number
        }

        mutating func fixed() throws(PropertyListDecodingError) -> UInt64 {
            let part = try slice(8)
            return part.reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// A LEB128 length, at most what is left to read.
        mutating func length() throws(PropertyListDecodingError) -> Int {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard remaining > 0 else { throw PropertyListDecodingError("a length ends early") }
                guard shift < 63 else { throw PropertyListDecodingError("a length is too long") }
                let byte = bytes[position]
                position += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            guard result <= UInt64(remaining) else {
                throw PropertyListDecodingError("a length of \(result) is more than the \(remaining) bytes left")
            }
            return Int(result)
        }

        mutating func slice(_ count: Int) throws(PropertyListDecodingError) -> [UInt8] {
            guard count <= remaining else { throw PropertyListDecodingError("the value ends early") }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }

        mutating func string() throws(PropertyListDecodingError) -> String {
            guard let text = String(validating: try slice(length()), as: UTF8.self) else {
                throw PropertyListDecodingError("a string is not UTF-8")
            }
            return text
        }
    }
}

/// Bytes that are not a canonical ``PropertyListCoding`` value.
public struct PropertyListDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "not a property-list value: \(reason)" }
}
