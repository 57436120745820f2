#if canImport(Glibc)
import Glibc
#endif

/// Why a file-system operation on a container failed; `code` is stable for tests and callers,
/// `message` says what happened and to which path.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// The operation would follow a symbolic link in a parent folder or leave the container.
        case escapesContainer
        case notFound
        case notADirectory
        case directoryNotEmpty
        case alreadyExists
        /// A name the agent cannot store (for example a version id that is too long).
        case invalidName
        /// Any other failed system call, with its errno.
        case ioError(errno: Int32)
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// Maps an errno from `operation` on `path` to a code, with a readable message.
    static func posix(_ errnoValue: Int32, _ operation: String, _ path: String) -> FileSystemError {
        let text = "\(operation) '\(path)' failed: \(String(cString: strerror(errnoValue)))"
        switch errnoValue {
        case ENOENT: return FileSystemError(.notFound, text)
        case ENOTDIR: return FileSystemError(.notADirectory, text)
        case ENOTEMPTY: return FileSystemError(.directoryNotEmpty, text)
        case EEXIST: return FileSystemError(.alreadyExists, text)
        default: return FileSystemError(.ioError(errno: errnoValue), text)
        }
    }
}
