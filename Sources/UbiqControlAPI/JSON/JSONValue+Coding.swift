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
        } catch let error as DecodingError {
            throw .invalidParams(Self.describe(error))
        } catch {
            throw .invalidParams("\(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
             .dataCorrupted(let context):
            context.debugDescription
        @unknown default:
            "\(error)"
        }
    }
}
