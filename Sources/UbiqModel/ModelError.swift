/// A rule of the model was broken by some input; `code` is stable for tests and clients.
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidContainerID
        case invalidPath
        case invalidVersionID
        case invalidAttributes
        case attributesTooLarge
        case invalidPackage
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
