/// Why chunking a file or building chunker parameters failed; `code` is stable for tests.
public struct ChunkingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case invalidParameters
        /// A system call failed with this errno.
        case ioError(errno: Int32)
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
