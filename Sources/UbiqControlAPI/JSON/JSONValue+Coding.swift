extension JSONValue {
    /// `value` encoded with ``JSONValueEncoder``.
    public init(encoding value: some Encodable) throws {
        self = try JSONValueEncoder().encode(value)
    }

    /// This value decoded with ``JSONValueDecoder``.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONValueDecoder().decode(type, from: self)
    }
}

/// Turns a request's params into the method's parameter type, failing the way JSON-RPC
/// expects: an ``RPCError`` with code `invalidParams` that names the offending field.
public enum RPCParams {
    public static func decode<T: Decodable>(_ type: T.Type, from params: JSONValue?) throws(RPCError) -> T {
        do {
            return try (params ?? .object([:])).decode(type)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty && params?.arrayValue != nil {
            throw .invalidParams("params must be an object of named fields (as {\"container\": \"…\"}), not an array: positional params are not taken")
        } catch let error as DecodingError {
            throw .invalidParams(Self.describe(error))
        } catch {
            throw .invalidParams("\(error)")
        }
    }

    /// What is wrong, naming the field (`items[0].path`) as the params spell it.
    private static func describe(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String {
            path.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "'\(field(context.codingPath + [key]))' is missing"
        case .valueNotFound(_, let context):
            let name = field(context.codingPath)
            return name.isEmpty ? "params are null; give an object" : "'\(name)' is null; give a value (a null cannot be stored or mean \"none\" here)"
        case .typeMismatch(let type, let context):
            let name = field(context.codingPath)
            return name.isEmpty ? "params must be an object" : "'\(name)' must be \(Self.kind(of: type)): \(context.debugDescription)"
        case .dataCorrupted(let context):
            let name = field(context.codingPath)
            return name.isEmpty ? context.debugDescription : "'\(name)': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type: "an integer"
        case is Double.Type: "a number"
        case is [Any].Type: "an array"
        default: "\(type)"
        }
    }
}
