import Foundation
import Testing
import UbiqControlAPI

@Suite struct JSONValueTests {
    @Test func numbersWithoutFractionOrExponentAreIntegers() throws {
        #expect(try JSONValue(parsing: "1") == .integer(1))
        #expect(try JSONValue(parsing: "-0") == .integer(0))
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(.max))
        #expect(try JSONValue(parsing: "1.0") == .double(1))
        #expect(try JSONValue(parsing: "1e2") == .double(100))
        #expect(try JSONValue(parsing: "-2.5E-3") == .double(-0.0025))
        #expect(try JSONValue(parsing: "[1, 1.0]") == .array([.integer(1), .double(1)]))
    }

    @Test func integersBeyond64BitsBecomeDoubles() throws {
        #expect(try JSONValue(parsing: "123456789012345678901234567890") == .double(1.2345678901234568e29))
    }

    @Test func refusesNumbersOutOfRangeAndMalformedNumbers() {
        for text in ["1e999", "-1e400", "01", "1.", ".5", "+1", "1e", "--1", "0x10", "NaN", "Infinity"] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue(parsing: text) }
        }
    }

    @Test func roundTripsThroughTextKeepingIntegerAndDoubleApart() throws {
        let value: JSONValue = [
            "int": 3, "double": 3.0, "negative": -0.0, "tiny": 1e-300, "big": .integer(.min),
            "text": "quote \" backslash \\ newline \n tab \t nul \u{0} line-sep \u{2028} emoji 🎉 é",
            "list": [nil, true, false, [], [:]], "nested": ["a": ["b": ["c": 1]]],
        ]
        for pretty in [false, true] {
            let text = value.serialized(pretty: pretty)
            #expect(try JSONValue(parsing: text) == value)
        }
        #expect(JSONValue.double(3).serialized() == "3.0")
        #expect(JSONValue.integer(3).serialized() == "3")
    }

    @Test func serializesWithSortedKeys() {
        let value: JSONValue = ["b": 1, "a": ["d": 2, "c": 3]]
        #expect(value.serialized() == #"{"a":{"c":3,"d":2},"b":1}"#)
        #expect(value.serialized(pretty: true) == "{\n  \"a\": {\n    \"c\": 3,\n    \"d\": 2\n  },\n  \"b\": 1\n}")
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        #expect(try JSONValue(parsing: #""\u00e9\ud83c\udf89\/\b\f""#) == .string("é🎉/\u{8}\u{c}"))
        for text in [#""\ud83c""#, #""\udf89""#, #""\x""#, #""\u12""#, "\"tab\tinside\""] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue(parsing: text) }
        }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x22, 0xC3, 0x22]) }
    }

    @Test func refusesNestingBeyondTheLimit() throws {
        let ok = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        _ = try JSONValue(parsing: ok)
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        let deepObjects = String(repeating: #"{"a":"#, count: JSONValue.maximumDepth + 1)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deepObjects) }
    }

    @Test func refusesTrailingDataAndTruncation() {
        for text in ["{} {}", "[1,]", #"{"a":1,}"#, #"{"a"}"#, "[1", #"{"a":"#, "tru", "nul", "", "   "] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue(parsing: text) }
        }
    }

    @Test func codableThroughJSONValueCodersKeepsNestedValuesExact() throws {
        struct Wrapper: Codable, Equatable {
            var value: JSONValue
            var when: Date
            var bytes: Data
            var count: UInt8
            var ratio: Double
            var missing: String?
        }
        let wrapper = Wrapper(value: ["a": 1.0, "b": 1], when: Date(timeIntervalSince1970: 0.25), bytes: Data([1, 2, 255]),
                              count: 7, ratio: 2, missing: nil)
        let json = try JSONValue(encoding: wrapper)
        #expect(json == [
            "value": ["a": 1.0, "b": 1], "when": "1970-01-01T00:00:00.250Z", "bytes": "AQL/", "count": 7, "ratio": 2.0,
        ])
        #expect(try json.decode(Wrapper.self) == wrapper)
    }

    @Test func decoderReportsThePathOfAWrongField() throws {
        struct Inner: Decodable { var size: Int }
        struct Outer: Decodable { var items: [Inner] }
        let json: JSONValue = ["items": [["size": 1], ["size": "big"]]]
        #expect {
            _ = try json.decode(Outer.self)
        } throws: { error in
            "\(error)".contains("items[1].size must be an integer")
        }
        #expect(throws: RPCError.self) { try RPCParams.decode(Outer.self, from: json) }
    }

    @Test func foundationCodersRoundTripJSONValue() throws {
        let value: JSONValue = ["a": [1, "x", nil, true, 2.5]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }
}
