/// A JSON-RPC 2.0 request, or a notification from the client when ``id`` is nil.
public struct RPCRequest: Hashable, Sendable, Codable {
    public var id: RPCID?
    public var method: String
    /// An object or an array, if present.
    public var params: JSONValue?

    public init(id: RPCID?, method: String, params: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }

    public var isNotification: Bool { id == nil }

    /// Why a line is not a request: the error to answer with, and the request's id when it
    /// could be read (JSON-RPC answers `null` otherwise).
    public struct Failure: Error, Hashable, Sendable {
        public var id: RPCID?
        public var error: RPCError
    }

    /// Validates one line as a request; never throws anything but a ``Failure``.
    public init(line: some Collection<UInt8>) throws(Failure) {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: line)
        } catch {
            throw Failure(id: nil, error: .parseError(error.description))
        }
        try self.init(json: json)
    }

    public init(json: JSONValue) throws(Failure) {
        guard case .object(let members) = json else {
            let hint = json.arrayValue != nil ? "; batches are not supported, send one request per line" : ""
            throw Failure(id: nil, error: .invalidRequest("a request must be a JSON object, not \(json.typeName)\(hint)"))
        }
        var id: RPCID?
        if let rawID = members["id"] {
            guard let parsed = RPCID(json: rawID) else {
                throw Failure(id: nil, error: .invalidRequest("\"id\" must be an integer or a string, not \(rawID.typeName)"))
            }
            id = parsed
        }
        guard members["jsonrpc"] == .string("2.0") else {
            throw Failure(id: id, error: .invalidRequest("\"jsonrpc\" must be \"2.0\""))
        }
        guard case .string(let method)? = members["method"], !method.isEmpty else {
            throw Failure(id: id, error: .invalidRequest("\"method\" must be a non-empty string"))
        }
        let params = members["params"]
        switch params {
        case nil, .object?, .array?: break
        case let other?:
            throw Failure(id: id, error: .invalidRequest("\"params\" must be an object or an array, not \(other.typeName)"))
        }
        self.init(id: id, method: method, params: params)
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
        if let id { members["id"] = id.json }
        if let params { members["params"] = params }
        return .object(members)
    }

    public init(from decoder: any Decoder) throws {
        do {
            try self.init(json: JSONValue(from: decoder))
        } catch let failure as Failure {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: failure.error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
