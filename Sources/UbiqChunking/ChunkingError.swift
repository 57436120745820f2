import Foundation

/// Why chunking a file or building chunker parameters failed; `code` is stable for tests.
public struct ChunkingError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        case invalidParameters
        /// A system call failed with this errno.
        case ioError(errno: Int32)
        /// The file got shorter while it was being read; chunk it again once it settles.
        case fileChanged
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func reading(_ code: Int32) -> ChunkingError {
        ChunkingError(.ioError(errno: code), "reading a file for chunking failed: \(String(cString: strerror(code)))")
    }
}
