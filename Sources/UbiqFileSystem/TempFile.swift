#if canImport(Glibc)
import Glibc
#endif
import Foundation
import UbiqModel

/// A file being written in the container's `.ubiq/tmp/`, invisible to the user until
/// `SafeFileSystem.commit` renames it into place. Give it to `commit` or `discard` exactly once.
public struct TempFile: Sendable {
    /// Open for reading and writing.
    public let fd: Int32
    /// Its name inside `.ubiq/tmp/`.
    public let name: String
    /// Its absolute path, for logs.
    public let path: String

    /// Writes all of `bytes` at `offset`.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FileSystemError) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw FileSystemError.posix(errno, "write", path)
            }
            done += n
        }
    }

    public func write(_ bytes: some ContiguousBytes, at offset: UInt64) throws(FileSystemError) {
        let result: Result<Void, FileSystemError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileSystemError) in try write(buffer, at: offset) }
        }
        try result.get()
    }

    /// Sets the final size (for preallocating, or truncating a copy of an old version).
    public func truncate(to size: UInt64) throws(FileSystemError) {
        if ftruncate(fd, off_t(size)) != 0 { throw FileSystemError.posix(errno, "truncate", path) }
    }
}

/// One temp file to move into place by `SafeFileSystem.commit(_:)`.
public struct PendingCommit: Sendable {
    public var file: TempFile
    public var path: RelativePath
    public var executable: Bool
    /// Modification time in nanoseconds since 1970.
    public var mtimeNs: Int64

    public init(file: TempFile, path: RelativePath, executable: Bool, mtimeNs: Int64) {
        self.file = file
        self.path = path
        self.executable = executable
        self.mtimeNs = mtimeNs
    }
}

/// What `SafeFileSystem.commit(_:)` did: the stat facts of each file now in place (to record
/// as the scan baseline) and why the others failed.
public struct CommitResult: Sendable {
    public var committed: [RelativePath: FileStat] = [:]
    public var failures: [RelativePath: FileSystemError] = [:]

    public init() {}
}
