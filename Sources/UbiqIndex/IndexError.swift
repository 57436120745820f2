/// A failure of the SQLite index; `code` is stable for callers and tests.
public struct IndexError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case corrupt
        case unknownContainer
        case database
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
