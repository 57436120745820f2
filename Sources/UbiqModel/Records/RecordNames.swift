/// The name of a record store within its container: also the name of its log folder, so it
/// is a plain file name (ASCII letters, digits, `.`, `_`, `-`; no leading dot), 1–64 bytes.
public struct RecordStoreName: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ raw: String) throws(RecordError) {
        guard (1...64).contains(raw.utf8.count), raw.first != ".",
              raw.utf8.allSatisfy({ RecordNameRules.isNameByte($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
            throw RecordError(.invalidName, "'\(raw)' is not a record store name: use 1–64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
        rawValue = raw
    }

    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// The name of a record's entity (its type, as a Core Data entity), or of an attribute: an
/// identifier of 1–64 ASCII letters, digits and `_`, starting with a letter or `_`.
public struct RecordName: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ raw: String) throws(RecordError) {
        guard (1...64).contains(raw.utf8.count), let first = raw.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              raw.utf8.allSatisfy(RecordNameRules.isNameByte) else {
            throw RecordError(.invalidName, "'\(raw)' is not an entity or attribute name: use 1–64 letters, digits or '_', not starting with a digit")
        }
        rawValue = raw
    }

    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// A record's ID, chosen by the application (a UUID, say): 1–128 bytes of UTF-8 with no
/// control characters. A record is known by its entity and ID together (``RecordKey``).
public struct RecordID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ raw: String) throws(RecordError) {
        guard (1...128).contains(raw.utf8.count), !raw.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw RecordError(.invalidName, "'\(raw)' is not a record ID: use 1–128 bytes of text without control characters")
        }
        rawValue = raw
    }

    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One record of a store: its entity and its ID.
public struct RecordKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var entity: RecordName
    public var id: RecordID

    public init(entity: RecordName, id: RecordID) {
        self.entity = entity
        self.id = id
    }

    public var description: String { "\(entity)/\(id)" }
    public static func < (a: Self, b: Self) -> Bool { (a.entity, a.id) < (b.entity, b.id) }
}

enum RecordNameRules {
    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
