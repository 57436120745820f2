import Foundation
import Testing
import UbiqControlAPI
import UbiqModel

@Suite struct PropertyListJSONTests {
    @Test func everyTypeRoundTripsThroughJSONText() throws {
        let value = PropertyListValue.dictionary([
            "b": .bool(true), "i": .integer(-7), "d": .double(2.0), "s": .string("x \"y\" ✓"),
            "date": .date(secondsSince1970: 1_795_000_000.123), "data": .data([0, 1, 2, 250, 255]),
            "a": .array([.integer(1), .double(1.5), .array([.dictionary(["k": .data([])])])]),
        ])
        let text = PropertyListJSON.json(value).serialized()
        #expect(try PropertyListJSON.value(try JSONValue(parsing: text)) == value)
        #expect(text.contains(#""date":{"$date":"2026-11-18T11:06:40.123Z"}"#))
        #expect(text.contains(#""d":2.0"#) && text.contains(#""i":-7"#))
        #expect(text.contains(#""data":{"$data":"AAEC+v8="}"#))
    }

    @Test(arguments: [
        ("2026-11-22T10:00:00.123Z", 1_795_341_600.123),
        ("2026-11-22T10:00:00Z", 1_795_341_600.0),
        ("2026-11-22T11:00:00.5+01:00", 1_795_341_600.5),
        ("1969-12-31T23:59:59.999Z", -0.001),
    ])
    func datesKeepMilliseconds(text: String, seconds: Double) throws {
        let value = try PropertyListJSON.value(["$date": .string(text)])
        guard case .date(let parsed) = value else { Issue.record("not a date"); return }
        #expect(abs(parsed - seconds) < 1e-6)
        let back = PropertyListJSON.json(value)["$date"]?.stringValue
        #expect(back.flatMap { try? PropertyListJSON.value(["$date": .string($0)]) } == value)
    }

    @Test(arguments: [
        JSONValue.null, ["a": nil], ["$data": "not base64!"], ["$data": 5], ["$date": "yesterday"], [1, nil],
    ] as [JSONValue])
    func whatIsNoPropertyListIsRefused(_ json: JSONValue) {
        #expect(throws: RPCError.self) { try PropertyListJSON.value(json) }
    }

    @Test func anObjectWithMoreThanTheMarkerIsADictionary() throws {
        #expect(try PropertyListJSON.value(["$data": "AA==", "other": 1]) == .dictionary(["$data": .string("AA=="), "other": .integer(1)]))
    }
}
