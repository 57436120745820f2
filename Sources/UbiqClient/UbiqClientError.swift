/// Why talking to the local agent failed, before or after a request reached it. Errors the
/// agent itself answers with are thrown as `RPCError`.
public struct UbiqClientError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// Nothing listens on the socket path.
        case agentNotRunning
        /// The socket exists but this user may not use it.
        case permissionDenied
        /// The path cannot name a Unix socket (too long, say).
        case invalidSocketPath
        /// The connection ended; the request may or may not have run.
        case connectionClosed
        /// The agent sent something this client cannot read.
        case invalidResponse
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
