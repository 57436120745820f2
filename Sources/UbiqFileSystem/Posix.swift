#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor closed when the last reference goes, so early exits never leak.
final class OwnedDescriptor: Sendable {
    let fd: Int32

    init(_ fd: Int32) { self.fd = fd }

    deinit { close(fd) }
}

enum Posix {
    static let directoryFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC

    /// Calls `body` again while it fails with EINTR; returns its result otherwise.
    @inline(__always)
    static func retrying<T: BinaryInteger>(_ body: () -> T) -> T {
        while true {
            let result = body()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    static func lstat(at dirfd: Int32, _ name: String) -> stat? {
        var st = stat()
        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st : nil
    }

    static func readLink(at dirfd: Int32, _ name: String) -> String? {
        var size = 256
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let n = readlinkat(dirfd, name, &buffer, size)
            if n < 0 { return nil }
            if n < size {
                return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            size *= 4
        }
    }

    static func kind(of mode: mode_t) -> FileType {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    enum FileType { case regular, directory, symlink, other }

    /// The names in an open directory, without `.` and `..`; raw bytes, since a name on disk
    /// need not be UTF-8.
    static func directoryEntries(of fd: Int32) -> (names: [[UInt8]], error: Int32?) {
        let copy = dup(fd)
        guard copy >= 0, let dir = fdopendir(copy) else {
            let code = errno
            return ([], code)
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                return (names, errno == 0 ? nil : errno)
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [UInt8] in
                let bytes = raw.bindMemory(to: UInt8.self)
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                return Array(bytes[..<length])
            }
            if name == [46] || name == [46, 46] { continue }
            names.append(name)
        }
    }

    /// A NUL-terminated copy of a raw name, for the `*at` calls.
    static func cName(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }

    static func nanoseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    static func timespec(nanoseconds ns: Int64) -> timespec {
        var seconds = ns / 1_000_000_000
        var rest = ns % 1_000_000_000
        if rest < 0 {
            seconds -= 1
            rest += 1_000_000_000
        }
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(rest))
    }
}
