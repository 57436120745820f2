/// A request id: JSON-RPC allows a number or a string; the answer carries it back unchanged.
public enum RPCID: Hashable, Sendable, Codable, CustomStringConvertible {
    case number(Int64)
    case string(String)

    public init?(json: JSONValue) {
        switch json {
        case .integer(let value): self = .number(value)
        case .string(let value): self = .string(value)
        default: return nil
        }
    }

    public var json: JSONValue {
        switch self {
        case .number(let value): .integer(value)
        case .string(let value): .string(value)
        }
    }

    public var description: String {
        switch self {
        case .number(let value): "\(value)"
        case .string(let value): value
        }
    }

    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        guard let id = RPCID(json: json) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "an id must be an integer or a string"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
