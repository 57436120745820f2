#if canImport(Glibc)
import Glibc
#endif

/// Linux calls the Glibc module hides (they need `_GNU_SOURCE`), looked up once at run time.
enum LinuxCalls {
    private typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
    private typealias Syncfs = @convention(c) (Int32) -> Int32

    private typealias SyncFileRange = @convention(c) (Int32, off_t, off_t, UInt32) -> Int32
    private typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<off_t>?, Int32, UnsafeMutablePointer<off_t>?, Int, UInt32) -> Int

    private typealias Fallocate = @convention(c) (Int32, Int32, off_t, off_t) -> Int32
    private static let fallocate: Fallocate? = dlsym(nil, "fallocate").map { unsafeBitCast($0, to: Fallocate.self) }

    /// `fallocate(fd, 0, 0, length)`: 0, or -1 with errno (ENOSYS where the call is missing).
    static func allocate(_ fd: Int32, offset: UInt64 = 0, length: UInt64) -> Int32 {
        guard let fallocate else {
            errno = ENOSYS
            return -1
        }
        return fallocate(fd, 0, off_t(offset), off_t(length))
    }

    private static let syncFileRange: SyncFileRange? = dlsym(nil, "sync_file_range").map { unsafeBitCast($0, to: SyncFileRange.self) }
    private static let copyFileRange: CopyFileRange? = dlsym(nil, "copy_file_range").map { unsafeBitCast($0, to: CopyFileRange.self) }

    /// Starts writing a range of a file back to disk without waiting
    /// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`), so the final fsync of a large file has
    /// little left to do. Only a hint: failures are ignored.
    static func startWriteback(_ fd: Int32, offset: UInt64, length: Int) {
        _ = syncFileRange?(fd, off_t(offset), off_t(length), 2)
    }

    /// Waits until a range already on its way to disk is written, then drops its pages from
    /// the page cache (`sync_file_range` with wait, then `POSIX_FADV_DONTNEED`). A large file
    /// being staged then reuses the same few megabytes of memory instead of taking hundreds of
    /// fresh ones; on a VM whose host takes back free memory, first touching fresh pages made
    /// the kernel's copy of a 512 MiB file 3–5× slower. Dirty pages are never dropped, so this
    /// loses nothing; failures are ignored.
    static func dropBehind(_ fd: Int32, offset: UInt64, length: Int) {
        _ = syncFileRange?(fd, off_t(offset), off_t(length), 1 | 2 | 4)
        _ = posix_fadvise(fd, off_t(offset), off_t(length), POSIX_FADV_DONTNEED)
    }

    /// `copy_file_range`: copies in the kernel, without bringing the bytes to user space.
    /// Returns the bytes copied, 0 at the end of the source, -1 with errno (ENOSYS where the
    /// call is missing, EXDEV or EINVAL where the file systems cannot).
    static func copyRange(from source: Int32, at sourceOffset: UInt64, to target: Int32, at targetOffset: UInt64, length: Int) -> Int {
        guard let copyFileRange else {
            errno = ENOSYS
            return -1
        }
        var from = off_t(sourceOffset)
        var to = off_t(targetOffset)
        return copyFileRange(source, &from, target, &to, length, 0)
    }

    /// `ioctl(FICLONERANGE)`: makes `length` bytes of `target` at `targetOffset` share the
    /// extents of `source` at `sourceOffset` (btrfs, xfs with reflink): no bytes are copied
    /// and no blocks taken. Offsets and length must be multiples of the block size (the
    /// length may end at the source's end). False with errno where the file system cannot.
    static func cloneRange(from source: Int32, at sourceOffset: UInt64, to target: Int32, at targetOffset: UInt64, length: UInt64) -> Bool {
        // struct file_clone_range { __s64 src_fd; __u64 src_offset, src_length, dest_offset; }
        var range: (Int64, UInt64, UInt64, UInt64) = (Int64(source), sourceOffset, length, targetOffset)
        // _IOW(0x94, 13, struct file_clone_range)
        let ficloneRange: UInt = 0x4020_940D
        return withUnsafeMutablePointer(to: &range) { ioctl(target, ficloneRange, $0) } == 0
    }

    /// `ioctl(FICLONE)`: makes `target` share all of `source`'s extents (btrfs, xfs with
    /// reflink). False with errno where the file system cannot.
    static func clone(from source: Int32, to target: Int32) -> Bool {
        // _IOW(0x94, 9, int)
        ioctl(target, 0x4004_9409, source) == 0
    }

    private static let renameat2: Renameat2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: Renameat2.self) }
    private static let syncfs: Syncfs? = dlsym(nil, "syncfs").map { unsafeBitCast($0, to: Syncfs.self) }

    static let renameNoReplace: UInt32 = 1

    /// `renameat2(..., RENAME_NOREPLACE)`; EINVAL or ENOSYS where the file system or libc lacks it.
    static func renameNoReplace(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String) -> Int32 {
        guard let renameat2 else {
            errno = ENOSYS
            return -1
        }
        return renameat2(fromDir, from, toDir, to, renameNoReplace)
    }

    /// `renameat2(..., RENAME_EXCHANGE)`: swaps two names in one step, so a reader sees one
    /// or the other, never neither; EINVAL or ENOSYS where the file system or libc lacks it.
    static func renameExchange(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String) -> Int32 {
        guard let renameat2 else {
            errno = ENOSYS
            return -1
        }
        return renameat2(fromDir, from, toDir, to, 2)
    }

    static var canSyncFileSystem: Bool { syncfs != nil }

    /// Flushes the whole file system holding `fd`; false where unavailable.
    static func syncFileSystem(_ fd: Int32) -> Bool {
        guard let syncfs else { return false }
        return syncfs(fd) == 0
    }
}
