#if canImport(Glibc)
import Glibc
#endif
import Foundation
import UbiqChunking

/// Another process holds a ``ProcessLock``: who, where it could tell.
public struct LockHeld: Error, Sendable, CustomStringConvertible {
    /// The holder's process ID, as it wrote it into the lock file.
    public let pid: Int32?
    public let lockFile: String

    public var description: String { "held by \(pid.map { "pid \($0)" } ?? "another process") (\(lockFile))" }
}

/// An exclusive lock that a process holds for as long as it runs: `flock` on a file, which the
/// kernel lets go of when the process ends however it ends, so a crash leaves nothing stale.
/// The holder writes its pid into the file, so a refused process can name it.
public final class ProcessLock: Sendable {
    private let fd: Int32
    public let path: String

    /// Takes the lock at `path` (making the file), or throws ``LockHeld`` at once.
    public init(at path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open the lock file", path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buffer, buffer.count, 0)
            close(fd)
            guard code == EWOULDBLOCK else { throw FileSystemError.posix(code, "lock", path) }
            let text = n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : ""
            throw LockHeld(pid: Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), lockFile: path)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        self.fd = fd
        self.path = path
    }

    /// The lock that stands for a folder (a container's), kept in `lockFolder` rather than in
    /// the folder itself: an open file there would keep its disk from being unmounted.
    public convenience init(forFolder folder: String, in lockFolder: String) throws {
        try FileManager.default.createDirectory(atPath: lockFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let resolved = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        try self.init(at: lockFolder + "/folder-" + ChunkHasher.hash(Data(resolved.utf8)).hex.prefix(32) + ".lock")
    }

    deinit { close(fd) }
}
