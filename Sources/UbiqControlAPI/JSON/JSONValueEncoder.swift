import Foundation

/// Encodes `Encodable` values straight to a ``JSONValue`` with the control protocol's
/// conventions: integers stay `.integer`, doubles stay `.double`, dates are ISO-8601 with
/// milliseconds, `Data` is base64, a nil optional is left out.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode(_ value: some Encodable) throws -> JSONValue {
        let slot = Slot()
        try slot.encode(value, codingPath: [])
        return slot.finished()
    }
}

/// One value under construction; containers hand out child slots so nested containers can
/// keep writing after their parent has moved on.
private final class Slot {
    enum Content {
        case unset
        case value(JSONValue)
        case object([String: Slot])
        case array([Slot])
    }

    var content = Content.unset

    func finished() -> JSONValue {
        switch content {
        case .unset: .object([:])
        case .value(let value): value
        case .object(let members): .object(members.mapValues { $0.finished() })
        case .array(let elements): .array(elements.map { $0.finished() })
        }
    }

    func makeObject() {
        if case .object = content { return }
        content = .object([:])
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }

    func member(_ key: String) -> Slot {
        let child = Slot()
        if case .object(var members) = content {
            content = .unset
            members[key] = child
            content = .object(members)
        }
        return child
    }

    func appendElement() -> Slot {
        let child = Slot()
        if case .array(var elements) = content {
            content = .unset
            elements.append(child)
            content = .array(elements)
        }
        return child
    }

    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        switch value {
        case let json as JSONValue: content = .value(json)
        case let date as Date: content = .value(.string(ControlDateFormat.string(from: date)))
        case let data as Data: content = .value(.string(data.base64EncodedString()))
        case let url as URL: content = .value(.string(url.absoluteString))
        default: try value.encode(to: SlotEncoder(slot: self, codingPath: codingPath))
        }
    }
}

private struct SlotEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.makeObject()
        return KeyedEncodingContainer(KeyedSlotContainer(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.makeArray()
        return UnkeyedSlotContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleSlotContainer(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedSlotContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { slot.member(key.stringValue).content = .value(.null) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try slot.member(key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = slot.member(key.stringValue)
        child.makeObject()
        return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(slot: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = slot.member(key.stringValue)
        child.makeArray()
        return UnkeyedSlotContainer(slot: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        SlotEncoder(slot: slot.member("super"), codingPath: codingPath + [IndexKey(stringValue: "super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        SlotEncoder(slot: slot.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedSlotContainer: UnkeyedEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]
    var count: Int { slot.count }

    private var nextKey: IndexKey { IndexKey(intValue: slot.count) }

    mutating func encodeNil() throws { slot.appendElement().content = .value(.null) }

    mutating func encode(_ value: some Encodable) throws {
        let path = codingPath + [nextKey]
        try slot.appendElement().encode(value, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [nextKey]
        let child = slot.appendElement()
        child.makeObject()
        return KeyedEncodingContainer(KeyedSlotContainer<NestedKey>(slot: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [nextKey]
        let child = slot.appendElement()
        child.makeArray()
        return UnkeyedSlotContainer(slot: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = codingPath + [nextKey]
        return SlotEncoder(slot: slot.appendElement(), codingPath: path)
    }
}

private struct SingleSlotContainer: SingleValueEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { slot.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { slot.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws { try store(value) }
    mutating func encode(_ value: Float) throws { try store(Double(value)) }
    mutating func encode(_ value: Int) throws { try store(value) }
    mutating func encode(_ value: Int8) throws { try store(value) }
    mutating func encode(_ value: Int16) throws { try store(value) }
    mutating func encode(_ value: Int32) throws { try store(value) }
    mutating func encode(_ value: Int64) throws { try store(value) }
    mutating func encode(_ value: UInt) throws { try store(value) }
    mutating func encode(_ value: UInt8) throws { try store(value) }
    mutating func encode(_ value: UInt16) throws { try store(value) }
    mutating func encode(_ value: UInt32) throws { try store(value) }
    mutating func encode(_ value: UInt64) throws { try store(value) }
    mutating func encode(_ value: some Encodable) throws { try slot.encode(value, codingPath: codingPath) }

    private func store(_ value: some FixedWidthInteger) throws {
        guard let integer = Int64(exactly: value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) does not fit a 64-bit signed integer"))
        }
        slot.content = .value(.integer(integer))
    }

    private func store(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "JSON has no \(value)"))
        }
        slot.content = .value(.double(value))
    }
}
