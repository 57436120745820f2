import Testing
import UbiqModel

@Suite struct PropertyListCodingTests {
    static let everyType: PropertyListValue = .dictionary([
        "bool": .bool(true), "off": .bool(false), "int": .integer(-42), "big": .integer(.max), "double": .double(2.0),
        "pi": .double(3.141592653589793), "string": .string("héllo ✓"), "empty": .string(""),
        "date": .date(secondsSince1970: 1_795_000_000.123), "data": .data([0, 1, 2, 255]), "none": .data([]),
        "array": .array([.integer(1), .double(1), .string("1"), .array([]), .dictionary([:])]),
        "nested": .dictionary(["deeper": .dictionary(["list": .array([.bool(false), .data([9])])])]),
    ])

    @Test func everyTypeRoundTripsExactly() throws {
        let bytes = PropertyListCoding.encode(Self.everyType)
        #expect(try PropertyListCoding.decode(bytes) == Self.everyType)
    }

    @Test func integersAndDoublesStayApart() throws {
        #expect(PropertyListCoding.encode(.integer(1)) != PropertyListCoding.encode(.double(1)))
        #expect(try PropertyListCoding.decode(PropertyListCoding.encode(.double(1))) == .double(1))
    }

    @Test func theEncodingIsCanonical() {
        var forward: [String: PropertyListValue] = [:]
        var backward: [String: PropertyListValue] = [:]
        let keys = (0..<50).map { "key\($0)" }
        for key in keys { forward[key] = .string(key) }
        for key in keys.reversed() { backward[key] = .string(key) }
        #expect(PropertyListCoding.encode(.dictionary(forward)) == PropertyListCoding.encode(.dictionary(backward)))
    }

    @Test(arguments: [
        ([], "ends early"),
        ([0], "unknown type tag"),
        ([3, 0, 0], "ends early"),
        ([1, 1], "after the value"),
        ([5, 10, 65], "more than"),
        ([5, 1, 0xFF], "not UTF-8"),
        ([8, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "more than"),
        ([9, 2, 1, 98, 1, 1, 97, 1], "out of order"),
        ([9, 2, 1, 97, 1, 1, 97, 1], "out of order"),
        ([5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1], "too long"),
        ([4, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0], "not a finite number"),
        ([6, 0xFF, 0xF0, 0, 0, 0, 0, 0, 0], "not a finite number"),
        ([9, 2, 3, 0x65, 0xCC, 0x81, 1, 2, 0xC3, 0xA9, 1], "repeats as equivalent Unicode"),
    ] as [([UInt8], String)])
    func hostileBytesAreRefused(bytes: [UInt8], reason: String) {
        #expect {
            try PropertyListCoding.decode(bytes)
        } throws: { error in
            (error as? PropertyListDecodingError)?.reason.contains(reason) == true
        }
    }

    @Test func nestingIsBounded() throws {
        var value = PropertyListValue.integer(1)
        for _ in 0..<(PropertyListCoding.maxDepth - 1) { value = .array([value]) }
        #expect(try PropertyListCoding.decode(PropertyListCoding.encode(value)) == value)
        let tooDeep: [UInt8] = Array(Array(repeating: [8, 1] as [UInt8], count: 100_000).joined()) + [1]
        #expect(throws: PropertyListDecodingError.self) { try PropertyListCoding.decode(tooDeep) }
    }

    @Test func sizesCountWhatTheApplicationStored() {
        #expect(PropertyListValue.bool(true).byteCount == 1)
        #expect(PropertyListValue.integer(7).byteCount == 8)
        #expect(PropertyListValue.string("héllo").byteCount == 6)
        #expect(PropertyListValue.data([UInt8](repeating: 0, count: 1000)).byteCount == 1000)
        #expect(PropertyListValue.dictionary(["ab": .array([.integer(1), .bool(false)])]).byteCount == 2 + 8 + 1)
    }
}
