/// Why a peer's message was refused; `code` is stable for tests, `reason` goes to the log.
public struct WireError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case malformed
        case invalidPath
        case invalidChunks
        case invalidVersion
        case noCommonVersion
        case wrongDevice
        case unexpectedMessage
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
