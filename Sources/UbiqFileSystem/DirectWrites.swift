#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A second descriptor of a large temp file, opened with `O_DIRECT`, through which the
/// block-aligned middle of each large run goes from user memory straight to the disk.
///
/// Writing through the page cache copies every byte into it, and on the benchmark VM that
/// copy was the receiver's largest cost: 0.64 of 2.2 CPU-seconds for a 512 MiB file, since
/// pages the host has taken back are slow to touch again. From Python, 512 MiB in 1 MiB
/// `pwrite`s took 0.05 CPU-seconds with `O_DIRECT`, 0.1–1.0 through the page cache.
///
/// Only the middle of a run is written here; the few bytes before its first block boundary
/// and after its last go through the page cache, so no block is written both ways. Where
/// the file system refuses direct writes, everything goes through the page cache.
final class DirectWrites: Sendable {
    /// Offsets, lengths and memory are aligned to this (4096 covers the devices' logical
    /// block sizes, 512 on the benchmark machine).
    static let alignment = 4096
    /// Runs shorter than this are not worth the copy into an aligned buffer.
    static let minimumRun = 64 << 10

    /// The descriptor, -1 while there is none. Held during each write, so closing it can
    /// never race a write into whatever file reuses its number.
    private let descriptor = Mutex<Int32>(-1)

    init() {}

    /// Opens the direct descriptor of `fd` (a regular file); where that fails, nothing changes.
    func open(reopening fd: Int32) {
        let direct = Glibc.open("/proc/self/fd/\(fd)", O_WRONLY | O_CLOEXEC | Self.directFlag)
        guard direct >= 0 else { return }
        let previous = descriptor.withLock { current in
            defer { current = direct }
            return current
        }
        if previous >= 0 { Glibc.close(previous) }
    }

    var isOpen: Bool { descriptor.withLock { $0 >= 0 } }

    func close() {
        let fd = descriptor.withLock { current in
            defer { current = -1 }
            return current
        }
        if fd >= 0 { Glibc.close(fd) }
    }

    /// The aligned middle of a run at `offset`: the part to write directly, or nil where
    /// there is none worth it.
    static func middle(offset: UInt64, count: Int) -> Range<UInt64>? {
        let a = UInt64(alignment)
        let start = (offset + a - 1) / a * a
        let end = (offset + UInt64(count)) / a * a
        guard end > start, end - start >= UInt64(minimumRun) else { return nil }
        return start..<end
    }

    /// Writes `bytes` (placed at an aligned `offset`, aligned in length) through an aligned
    /// buffer and returns how many were written. Fewer where there is no direct descriptor or
    /// the file system refused: the caller writes the rest the usual way, and later runs
    /// skip this. A full disk throws, as any write would.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64, path: String) throws(FileSystemError) -> Int {
        guard isOpen else { return 0 }
        let buffer = AlignedBuffers.shared.take()
        defer { AlignedBuffers.shared.give(buffer) }
        var done = 0
        while done < bytes.count {
            let n = min(AlignedBuffers.size, bytes.count - done)
            buffer.copyMemory(from: bytes.baseAddress! + done, byteCount: n)
            let (result, code): (Int, Int32) = descriptor.withLock { fd in
                guard fd >= 0 else { return (0, 0) }
                let result = Posix.retrying { pwrite(fd, buffer, n, off_t(offset) + off_t(done)) }
                return (result, errno)
            }
            if result > 0 { done += result }
            if result == n { continue }
            if result < 0, code == ENOSPC || code == EDQUOT { throw FileSystemError.posix(code, "write", path) }
            close()
            break
        }
        return done
    }

    /// `O_DIRECT`, which the Glibc module hides (it needs `_GNU_SOURCE`): 0o40000 on x86-64,
    /// 0o200000 on AArch64 (Linux's `asm-generic` and `arm64` `fcntl.h`).
    #if arch(x86_64)
    static let directFlag: Int32 = 0o40000
    #elseif arch(arm64)
    static let directFlag: Int32 = 0o200000
    #else
    static let directFlag: Int32 = 0
    #endif
}

/// Reused aligned buffers for direct writes: fresh memory for every run would be touched
/// for the first time on every run, the cost direct writes avoid.
final class AlignedBuffers: Sendable {
    static let shared = AlignedBuffers()
    static let size = 1 << 20
    /// Buffers kept between writes; more are made while this many are in use.
    static let kept = 4

    /// Free buffers by address (raw pointers are not `Sendable`).
    private let free = Mutex<[UInt]>([])

    func take() -> UnsafeMutableRawPointer {
        if let address = free.withLock({ $0.popLast() }) { return UnsafeMutableRawPointer(bitPattern: address)! }
        return UnsafeMutableRawPointer.allocate(byteCount: Self.size, alignment: DirectWrites.alignment)
    }

    func give(_ buffer: UnsafeMutableRawPointer) {
        let keep = free.withLock { list in
            guard list.count < Self.kept else { return false }
            list.append(UInt(bitPattern: buffer))
            return true
        }
        if !keep { buffer.deallocate() }
    }
}
