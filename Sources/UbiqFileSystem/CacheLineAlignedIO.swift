#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Reads and writes of large runs that keep the kernel's copy between user memory and the
/// page cache off its slow case.
///
/// That copy is `rep movsb`, which on the benchmark machine (AMD EPYC) ran at about half
/// speed when the destination lay just ahead of the source, modulo 4096. Measured from
/// Python, 512 MiB in 1 MiB `pwrite`s with the file offset 1–2 bytes ahead of the buffer:
/// 0.35–0.43 CPU-seconds; at distances of 16 bytes and more, 0.17–0.25. Reads are placed
/// at the file offset's place in a cache line, which costs nothing and keeps them out of
/// it; the few writes that would fall into it go through a small bounce buffer.
public enum CacheLineAlignedIO {
    static let line = 64
    /// The bounce buffer of a write that needs one: small enough to stay in the core's cache.
    static let piece = 256 << 10

    /// How far from a cache line's start a run at `offset` must begin in memory.
    static func shift(for offset: UInt64) -> Int { Int(offset % UInt64(line)) }

    /// Reads exactly `count` bytes at `offset` into fresh memory placed as above, without
    /// zero-filling it first. Throws where the file is shorter or the read fails.
    public static func read(_ fd: Int32, at offset: UInt64, count: Int, path: String) throws(FileSystemError) -> Data {
        guard count > 0 else { return Data() }
        // Plain `malloc`, not `posix_memalign`: the served runs' memory then comes back to
        // the heap as before (with `posix_memalign` the serving agent's peak grew by 10 MiB).
        guard let base = malloc(count + 2 * line) else {
            throw FileSystemError(.ioError(errno: ENOMEM), "no memory to read \(count) bytes of '\(path)'")
        }
        let lead = (line - Int(bitPattern: base) % line) % line + shift(for: offset)
        let buffer = base + lead
        var done = 0
        while done < count {
            let n = Posix.retrying { pread(fd, buffer + done, count - done, off_t(offset) + off_t(done)) }
            guard n > 0 else {
                let code = n < 0 ? errno : EIO
                free(base)
                throw FileSystemError(.ioError(errno: code),
                    n < 0 ? "reading '\(path)' at \(offset + UInt64(done)) failed: \(String(cString: strerror(code)))"
                          : "'\(path)' ends before \(offset + UInt64(count)): it changed while being read")
            }
            done += n
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .custom { pointer, _ in free(pointer - lead) })
    }

    /// Whether the kernel's copy of bytes at `address` to `offset` would be the slow one:
    /// the destination fewer than 64 bytes ahead of the source, modulo 4096.
    static func isShortDistance(from address: UnsafeRawPointer, to offset: UInt64) -> Bool {
        let distance = (Int(offset % 4096) - Int(bitPattern: address) % 4096 + 4096) % 4096
        return distance > 0 && distance < line
    }

    /// Writes all of `bytes` at `offset`; a large run whose copy would be the slow one goes
    /// through a small bounce buffer placed like the offset.
    static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: UInt64, path: String) throws(FileSystemError) {
        guard let start = bytes.baseAddress, bytes.count >= piece, isShortDistance(from: start, to: offset) else {
            return try writeAll(fd, bytes, at: offset, path: path)
        }
        let bounce = UnsafeMutableRawBufferPointer.allocate(byteCount: piece + line, alignment: line)
        defer { bounce.deallocate() }
        var done = 0
        while done < bytes.count {
            let n = min(piece, bytes.count - done)
            let at = offset + UInt64(done)
            let target = bounce.baseAddress! + shift(for: at)
            target.copyMemory(from: start + done, byteCount: n)
            try writeAll(fd, UnsafeRawBufferPointer(start: target, count: n), at: at, path: path)
            done += n
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: UInt64, path: String) throws(FileSystemError) {
        var done = 0
        while done < bytes.count {
            let n = Posix.retrying { pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            guard n >= 0 else { throw FileSystemError.posix(errno, "write", path) }
            done += n
        }
    }
}
