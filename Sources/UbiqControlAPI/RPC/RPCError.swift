/// A JSON-RPC 2.0 error object: what a failed call answers and what `UbiqClient` throws.
///
/// Codes from -32768 to -32000 are reserved by JSON-RPC; ubiq's own codes sit in the
/// -32000...-32099 "server error" range. Compare ``code``, not ``message``.
public struct RPCError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// A JSON-RPC error code.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public init(_ rawValue: Int) { self.rawValue = rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(Int.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { "\(rawValue)" }

        /// The line is not JSON.
        public static let parseError = Code(-32700)
        /// The JSON is not a JSON-RPC 2.0 request object.
        public static let invalidRequest = Code(-32600)
        public static let methodNotFound = Code(-32601)
        public static let invalidParams = Code(-32602)
        public static let internalError = Code(-32603)

        /// The connecting process does not run as the agent's user.
        public static let permissionDenied = Code(-32001)
        /// A line longer than the agent accepts; the connection is closed after this answer.
        public static let messageTooLarge = Code(-32002)
        /// No such container on this device.
        public static let containerNotFound = Code(-32003)
        /// No item at that path.
        public static let notFound = Code(-32004)
        /// The path is not a valid container-relative path.
        public static let invalidPath = Code(-32005)
        /// No conflict version with that id.
        public static let conflictNotFound = Code(-32006)
        /// The agent cannot do this now (starting, signed out, subsystem down); retry later.
        public static let unavailable = Code(-32007)
        /// No key-value store with that identifier on this device (add it with `--kvstore`).
        public static let storeNotFound = Code(-32008)
        /// A key-value key is empty.
        public static let invalidKey = Code(-32009)
        /// A key-value key has more UTF-8 bytes than the store allows.
        public static let keyTooLong = Code(-32010)
        /// A key-value value is larger than the store allows.
        public static let valueTooLarge = Code(-32011)
        /// The write would give the store more keys than it allows.
        public static let tooManyKeys = Code(-32012)
        /// The write would make the store's values larger than it allows.
        public static let storeTooLarge = Code(-32013)
        /// `coordinate.acquire` could not get its lease within the timeout.
        public static let leaseTimeout = Code(-32014)
        /// The container downloads everything; eviction needs `download = "on-demand"`.
        public static let notOnDemand = Code(-32015)
        /// No other device holds this version yet; evicting it would lose it.
        public static let notUploaded = Code(-32016)
        /// Something is already at the path a new item was to be written to; nothing was written.
        public static let alreadyExists = Code(-32017)
        /// No running query with that id on this connection.
        public static let queryNotFound = Code(-32018)
        /// A record store's name, an entity, attribute or record ID, or a transaction that
        /// breaks the rules of record stores (a record changed twice, an update of a record
        /// that is not there); nothing was saved.
        public static let invalidRecord = Code(-32019)
        /// A transaction over the record stores' limits; nothing was saved. Save it in parts.
        public static let recordLimit = Code(-32020)
    }

    public var code: Code
    public var message: String
    public var data: JSONValue?

    public init(_ code: Code, _ message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (error \(code.rawValue))" }

    public static func parseError(_ message: String) -> RPCError { RPCError(.parseError, message) }
    public static func invalidRequest(_ message: String) -> RPCError { RPCError(.invalidRequest, message) }
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(.methodNotFound, "no method '\(method)'; see the control socket documentation for the list")
    }
    public static func invalidParams(_ message: String) -> RPCError { RPCError(.invalidParams, message) }
    public static func internalError(_ message: String) -> RPCError { RPCError(.internalError, message) }
}
