import Testing
import UbiqControlAPI

@Suite struct RPCMessageTests {
    private func failure(_ line: String) -> RPCRequest.Failure? {
        do {
            _ = try RPCRequest(line: Array(line.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func acceptsRequestsAndNotifications() throws {
        let request = try RPCRequest(line: Array(#"{"jsonrpc":"2.0","id":7,"method":"agent.status"}"#.utf8))
        #expect(request == RPCRequest(id: .number(7), method: "agent.status"))
        let named = try RPCRequest(line: Array(#"{"jsonrpc":"2.0","id":"x","method":"m","params":[1]}"#.utf8))
        #expect(named.id == .string("x"))
        #expect(named.params == [1])
        let notification = try RPCRequest(line: Array(#"{"jsonrpc":"2.0","method":"m","params":{}}"#.utf8))
        #expect(notification.isNotification)
    }

    @Test func classifiesBadLines() {
        #expect(failure("{")?.error.code == .parseError)
        #expect(failure("{")?.id == nil)
        #expect(failure("[]")?.error.code == .invalidRequest)
        #expect(failure("42")?.error.code == .invalidRequest)
        #expect(failure(#"{"id":1,"method":"m"}"#)?.id == .number(1))
        #expect(failure(#"{"id":1,"method":"m"}"#)?.error.code == .invalidRequest)
        #expect(failure(#"{"jsonrpc":"1.0","id":"a","method":"m"}"#)?.id == .string("a"))
        #expect(failure(#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#)?.error.code == .invalidRequest)
        #expect(failure(#"{"jsonrpc":"2.0","id":null,"method":"m"}"#)?.error.code == .invalidRequest)
        #expect(failure(#"{"jsonrpc":"2.0","id":1,"method":5}"#)?.error.code == .invalidRequest)
        #expect(failure(#"{"jsonrpc":"2.0","id":1,"method":""}"#)?.error.code == .invalidRequest)
        #expect(failure(#"{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}"#)?.error.code == .invalidRequest)
    }

    @Test func responsesRoundTrip() throws {
        let responses = [
            RPCResponse(id: .number(1), result: ["a": 1]),
            RPCResponse(id: .string("z"), result: nil),
            RPCResponse(id: nil, error: RPCError(.parseError, "bad")),
            RPCResponse(id: .number(2), error: RPCError(.notFound, "gone", data: ["path": "a"])),
        ]
        for response in responses {
            let line = response.json.serialized()
            #expect(RPCServerMessage(line: Array(line.utf8)) == .response(response))
        }
        let notification = RPCNotification(method: "query.update", params: ["n": 1])
        #expect(RPCServerMessage(line: Array(notification.json.serialized().utf8)) == .notification(notification))
        #expect(RPCServerMessage(line: Array(#"{"jsonrpc":"2.0","id":1}"#.utf8)) == nil)
    }
}
