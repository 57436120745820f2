import Foundation

/// Decodes `Decodable` values straight from a ``JSONValue``, the mirror of
/// ``JSONValueEncoder``. Whole doubles are accepted where an integer is expected, integers
/// where a double is; a missing key and `null` both decode as nil.
public struct JSONValueDecoder: Sendable {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try Implementation(value: value, codingPath: []).decodeValue(type)
    }

    /// The `Decoder` handed to `init(from:)`; ``JSONValue`` recognises it to take its value as is.
    struct Implementation: Decoder {
        let value: JSONValue
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
            if type == Date.self {
                guard case .string(let text) = value, let date = ControlDateFormat.date(from: text) else {
                    throw mismatch(type, "an ISO-8601 date string")
                }
                return date as! T
            }
            if type == Data.self {
                guard case .string(let text) = value, let data = Data(base64Encoded: text) else {
                    throw mismatch(type, "a base64 string")
                }
                return data as! T
            }
            if type == URL.self {
                guard case .string(let text) = value, let url = URL(string: text) else { throw mismatch(type, "a URL string") }
                return url as! T
            }
            return try T(from: self)
        }

        func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
            .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "\(codingPath.dottedPath) must be \(expected), not \(value.typeName)"))
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, "an object") }
            return KeyedDecodingContainer(KeyedValueContainer<Key>(members: members, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = value else { throw mismatch([JSONValue].self, "an array") }
            return UnkeyedValueContainer(elements: elements, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            SingleValueContainer(decoder: self)
        }
    }
}

private struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func decoder(for key: Key) throws -> JSONValueDecoder.Implementation {
        guard let value = members[key.stringValue] else {
            let path = codingPath + [key]
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "\(path.dottedPath) is missing"))
        }
        return JSONValueDecoder.Implementation(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { members[key.stringValue]?.isNull ?? true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder(for: key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoder.Implementation(value: members["super"] ?? .null, codingPath: codingPath + [IndexKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoder.Implementation(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func nextDecoder() throws -> JSONValueDecoder.Implementation {
        let key = IndexKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath + [key], debugDescription: "\((codingPath + [key]).dottedPath) is past the end of the array"))
        }
        defer { currentIndex += 1 }
        return JSONValueDecoder.Implementation(value: elements[currentIndex], codingPath: codingPath + [key])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try nextDecoder().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try nextDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try nextDecoder().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try nextDecoder() }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONValueDecoder.Implementation
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let value) = decoder.value else { throw decoder.mismatch(type, "a boolean") }
        return value
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let value) = decoder.value else { throw decoder.mismatch(type, "a string") }
        return value
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard let value = decoder.value.doubleValue else { throw decoder.mismatch(type, "a number") }
        return value
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let result: T? = switch decoder.value {
        case .integer(let value): T(exactly: value)
        case .double(let value): T(exactly: value)
        default: nil
        }
        guard let result else { throw decoder.mismatch(type, "an integer that fits \(type)") }
        return result
    }
}
