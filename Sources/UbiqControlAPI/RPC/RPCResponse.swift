/// A JSON-RPC 2.0 response: the result of one request, or its error.
public struct RPCResponse: Hashable, Sendable, Codable {
    public enum Outcome: Hashable, Sendable {
        case result(JSONValue)
        case error(RPCError)
    }

    /// Nil when the request's id could not be read; it is then sent as `null`.
    public var id: RPCID?
    public var outcome: Outcome

    public init(id: RPCID?, outcome: Outcome) {
        self.id = id
        self.outcome = outcome
    }

    public init(id: RPCID?, result: JSONValue) { self.init(id: id, outcome: .result(result)) }
    public init(id: RPCID?, error: RPCError) { self.init(id: id, outcome: .error(error)) }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["jsonrpc": "2.0", "id": id?.json ?? .null]
        switch outcome {
        case .result(let result):
            members["result"] = result
        case .error(let error):
            var object: [String: JSONValue] = ["code": .integer(Int64(error.code.rawValue)), "message": .string(error.message)]
            if let data = error.data { object["data"] = data }
            members["error"] = .object(object)
        }
        return .object(members)
    }

    /// Reads a response object; nil when `json` is not one.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, members["jsonrpc"] == .string("2.0"), let rawID = members["id"] else { return nil }
        let id = RPCID(json: rawID)
        guard id != nil || rawID.isNull else { return nil }
        if let result = members["result"], members["error"] == nil {
            self.init(id: id, result: result)
        } else if case .object(let error)? = members["error"], members["result"] == nil,
                  case .integer(let code)? = error["code"], let code = Int(exactly: code),
                  case .string(let message)? = error["message"]
        {
            self.init(id: id, error: RPCError(RPCError.Code(code), message, data: error["data"]))
        } else {
            return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        guard let response = RPCResponse(json: try JSONValue(from: decoder)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a JSON-RPC 2.0 response"))
        }
        self = response
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
