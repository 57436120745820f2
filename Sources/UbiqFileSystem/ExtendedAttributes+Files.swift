#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

extension ExtendedAttributes {
    /// The `user.` attributes of the file or folder at `path` (never following a link there),
    /// for tools and tests that compare trees.
    public static func read(atPath path: String) throws(FileSystemError) -> ExtendedAttributes {
        let fd = try open(path)
        defer { close(fd) }
        switch AttributeIO.read(fd) {
        case .attributes(let attributes): return attributes
        case .tooLarge(let bytes): throw FileSystemError(.invalidName, "'\(path)' has \(bytes) bytes of extended attributes, past the limit")
        case .failed(let code, let operation): throw FileSystemError.posix(code, operation, path)
        }
    }

    /// Makes the `user.` attributes of the file or folder at `path` exactly these.
    public func write(toPath path: String) throws(FileSystemError) {
        let fd = try Self.open(path)
        defer { close(fd) }
        try AttributeIO.write(self, to: fd, display: path)
    }

    private static func open(_ path: String) throws(FileSystemError) -> Int32 {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open", path) }
        return fd
    }
}
