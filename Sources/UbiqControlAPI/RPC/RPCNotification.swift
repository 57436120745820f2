/// A message without an id that the agent pushes to a client (query updates, presenter
/// events, key-value changes); it gets no answer.
public struct RPCNotification: Hashable, Sendable, Codable {
    public var method: String
    public var params: JSONValue?

    public init(method: String, params: JSONValue? = nil) {
        self.method = method
        self.params = params
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
        if let params { members["params"] = params }
        return .object(members)
    }

    /// Reads a notification object; nil when `json` is not one.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, members["jsonrpc"] == .string("2.0"), members["id"] == nil,
              case .string(let method)? = members["method"]
        else { return nil }
        self.init(method: method, params: members["params"])
    }

    public init(from decoder: any Decoder) throws {
        guard let notification = RPCNotification(json: try JSONValue(from: decoder)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a JSON-RPC 2.0 notification"))
        }
        self = notification
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
