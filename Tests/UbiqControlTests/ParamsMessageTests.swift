import Testing
import UbiqControlAPI

/// What a client is told about params it got wrong names the field and what to send.
struct ParamsMessageTests {
    @Test func aNullValueForKvSetSaysThatNullIsNoValue() throws {
        let params: JSONValue = ["store": "TEAMID.com.example.settings", "key": "theme", "value": .null]
        let request = try RPCParams.decode(KeyValueSetParams.self, from: params)
        #expect { try request.changes() } throws: { error in
            guard let error = error as? RPCError else { return false }
            return error.code == .invalidParams && error.message.contains("'value' is missing or null") && error.message.contains("kv.remove")
        }
    }

    @Test func aNestedFieldIsNamedWithItsPath() {
        let params: JSONValue = ["container": "A.b", "items": .array([["path": "x", "access": 3]])]
        #expect { try RPCParams.decode(CoordinateAcquireParams.self, from: params) } throws: { error in
            guard let error = error as? RPCError else { return false }
            return error.code == .invalidParams && error.message.contains("'items[0].access' must be a string")
        }
    }
}
