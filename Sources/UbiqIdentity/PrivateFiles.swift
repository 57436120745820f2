#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Owner-only files and folders written so that a crash leaves either the old or the new
/// content: a temporary file in the same folder, fsync, rename (or link when an existing file
/// must not be replaced), fsync of the folder.
enum PrivateFiles {
    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0 {
            let error = errno
            guard error == EEXIST else { throw failure("create the folder \(path)", error) }
        }
        guard chmod(path, 0o700) == 0 else { throw failure("restrict the folder \(path) to its owner", errno) }
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The most `readFile` reads: every file of an identity, and a bundle, is a few KiB.
    static let maximumFileSize = 1 << 20

    /// The file's bytes, or nil when it does not exist. A file over ``maximumFileSize`` (or
    /// endless, such as /dev/zero) is an error, not a reason to run out of memory.
    static func readFile(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let error = errno
            if error == ENOENT { return nil }
            throw failure("open \(path)", error)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read \(path)", errno)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= maximumFileSize else {
                throw IdentityError(.fileSystem, "\(path) is larger than \(maximumFileSize >> 20) MiB, which no identity file or account bundle is.")
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes `bytes` to `path` with mode 0600. With `replacing: false` an existing file is
    /// left alone and `IdentityError.fileExists` is thrown.
    static func writeFile(_ bytes: [UInt8], to path: String, replacing: Bool = true) throws {
        let folder = parent(of: path)
        let temporary = "\(folder)/.\(name(of: path)).\(String(UInt64.random(in: .min ... .max), radix: 16)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create a file in \(folder)", errno) }
        var closed = false
        defer {
            if !closed { close(fd) }
            unlink(temporary)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("write \(temporary)", errno)
            }
            written += count
        }
        guard fsync(fd) == 0 else { throw failure("flush \(temporary)", errno) }
        closed = true
        guard close(fd) == 0 else { throw failure("close \(temporary)", errno) }

        if replacing {
            guard rename(temporary, path) == 0 else { throw failure("rename \(temporary) to \(path)", errno) }
        } else if link(temporary, path) != 0 {
            let error = errno
            if error == EEXIST {
                throw IdentityError(.fileExists, "\(path) already exists; choose another path or remove it first.")
            }
            throw failure("create \(path)", error)
        }
        syncDirectory(folder)
    }

    /// Removes a file; a missing file is fine.
    static func remove(_ path: String) throws {
        if unlink(path) != 0 {
            let error = errno
            guard error == ENOENT else { throw failure("remove \(path)", error) }
        }
    }

    /// Removes a folder if it is empty; a missing or non-empty folder is left as it is.
    static func removeDirectoryIfEmpty(_ path: String) {
        _ = rmdir(path)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    private static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func failure(_ action: String, _ error: Int32) -> IdentityError {
        IdentityError(.fileSystem, "Could not \(action): \(String(cString: strerror(error))).")
    }
}
