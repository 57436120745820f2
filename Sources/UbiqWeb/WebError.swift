/// Why the web page could not start or answer, with what to do about it.
public struct WebError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable {
        /// The token file cannot be read, written, or is open to other users.
        case token
        /// The listen address cannot be used.
        case listen
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
