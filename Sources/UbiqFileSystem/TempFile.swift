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
    /// Open once a large size is reserved.
    let direct = DirectWrites()

    init(fd: Int32, name: String, path: String) {
        self.fd = fd
        self.name = name
        self.path = path
    }

    /// Whether runs now bypass the page cache (after a large `reserve`, where the file
    /// system allows it).
    public var writesDirectly: Bool { direct.isOpen }

    /// Closes its descriptors; the file stays where it is.
    func close() {
        direct.close()
        _ = Glibc.close(fd)
    }

    /// Writes all of `bytes` at `offset`. Large writes start their way to disk at once, so
    /// committing a large file does not wait for all of it to be written back.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(FileSystemError) {
        if let middle = DirectWrites.middle(offset: offset, count: bytes.count) {
            let head = Int(middle.lowerBound - offset)
            let written = try direct.write(UnsafeRawBufferPointer(rebasing: bytes[head..<(head + middle.count)]),
                                           at: middle.lowerBound, path: path)
            if written > 0 {
                try CacheLineAlignedIO.write(fd, UnsafeRawBufferPointer(rebasing: bytes[..<head]), at: offset, path: path)
                let rest = head + written
                try CacheLineAlignedIO.write(fd, UnsafeRawBufferPointer(rebasing: bytes[rest...]), at: offset + UInt64(rest), path: path)
                return
            }
        }
        try CacheLineAlignedIO.write(fd, bytes, at: offset, path: path)
        guard bytes.count >= Self.writebackSize else { return }
        LinuxCalls.startWriteback(fd, offset: offset, length: bytes.count)
        // Files arrive in order, run after run: what was written `dropDistance` earlier is on
        // disk by now, or nearly.
        if offset >= UInt64(Self.dropDistance) {
            LinuxCalls.dropBehind(fd, offset: offset - UInt64(Self.dropDistance), length: bytes.count)
        }
    }

    static let writebackSize = 256 << 10
    /// Files at least this large, once reserved, write runs with `O_DIRECT` (see
    /// ``DirectWrites``); smaller ones are done before their writeback matters.
    static let directSize: UInt64 = 16 << 20
    /// How far behind the newest write the pages of a large staged file leave memory.
    static let dropDistance = 2 * copyPiece

    /// Copies `length` bytes of the open file `source` at `sourceOffset` to `offset`, in the
    /// kernel where it can (no pass through user space), else by reading and writing. The copy
    /// goes in pieces, each sent on its way to disk as soon as it is made, so the disk writes
    /// while the rest is copied; a piece leaves memory once the next is made.
    public func copy(from source: Int32, at sourceOffset: UInt64, length: UInt64, to offset: UInt64) throws(FileSystemError) {
        // Where the file system shares extents (btrfs, xfs), the whole blocks of the range
        // are cloned: a new version made from an old one takes only its changed blocks.
        let block = UInt64(Self.cloneBlock)
        if length >= block * 4, sourceOffset % block == offset % block {
            let head = (block - offset % block) % block
            let middle = (length - head) / block * block
            if middle > 0, LinuxCalls.cloneRange(from: source, at: sourceOffset + head, to: fd, at: offset + head, length: middle) {
                if head > 0 { try copyInKernel(from: source, at: sourceOffset, length: head, to: offset) }
                let tail = length - head - middle
                if tail > 0 { try copyInKernel(from: source, at: sourceOffset + head + middle, length: tail, to: offset + head + middle) }
                return
            }
        }
        try copyInKernel(from: source, at: sourceOffset, length: length, to: offset)
    }

    /// The block size clones are aligned to.
    static let cloneBlock = 4096

    private func copyInKernel(from source: Int32, at sourceOffset: UInt64, length: UInt64, to offset: UInt64) throws(FileSystemError) {
        var done: UInt64 = 0
        var flushed: UInt64 = 0
        var previousPiece: (offset: UInt64, length: Int)?
        while done < length {
            let n = LinuxCalls.copyRange(from: source, at: sourceOffset + done, to: fd, at: offset + done,
                                         length: Int(min(length - done, UInt64(Self.copyPiece))))
            if n > 0 {
                done += UInt64(n)
                if done - flushed >= UInt64(Self.copyPiece) || (done == length && done - flushed >= UInt64(Self.writebackSize)) {
                    LinuxCalls.startWriteback(fd, offset: offset + flushed, length: Int(done - flushed))
                    if let last = previousPiece { LinuxCalls.dropBehind(fd, offset: last.offset, length: last.length) }
                    previousPiece = (offset + flushed, Int(done - flushed))
                    flushed = done
                }
                continue
            }
            if n == 0 { throw FileSystemError(.ioError(errno: EIO), "'\(path)': the source ended before \(length) bytes were copied") }
            if errno == EINTR { continue }
            guard errno == ENOSYS || errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP else {
                throw FileSystemError.posix(errno, "copy into", path)
            }
            return try copyByReading(from: source, at: sourceOffset + done, length: length - done, to: offset + done)
        }
    }

    /// How much one kernel copy moves before its writeback starts (measured here: a 512 MiB
    /// copy and flush took 0.58 s in one piece, 0.43 s in pieces of 16 MiB).
    static let copyPiece = 8 << 20

    private func copyByReading(from source: Int32, at sourceOffset: UInt64, length: UInt64, to offset: UInt64) throws(FileSystemError) {
        var buffer = [UInt8](repeating: 0, count: Int(min(length, 1 << 20)))
        var done: UInt64 = 0
        while done < length {
            let want = Int(min(length - done, UInt64(buffer.count)))
            let n = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress!, want, off_t(sourceOffset + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw FileSystemError(.ioError(errno: n < 0 ? errno : EIO), "'\(path)': cannot read the source to copy") }
            let result: Result<Void, FileSystemError> = buffer.withUnsafeBytes { raw in
                Result { () throws(FileSystemError) in try write(UnsafeRawBufferPointer(rebasing: raw[0..<n]), at: offset + done) }
            }
            try result.get()
            done += UInt64(n)
        }
    }

    /// Writes `bytes` at `offset` but for the whole blocks of zeros among them, which stay
    /// holes: only for a file given its size by ``truncate(to:)`` whose blocks there were
    /// never written (a hole reads as zeros).
    public func writeLeavingHoles(_ bytes: some ContiguousBytes, at offset: UInt64) throws(FileSystemError) {
        let result: Result<Void, FileSystemError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileSystemError) in
                let runs = ZeroRuns.find(in: buffer, alignedTo: offset)
                for data in ZeroRuns.complement(of: runs, count: buffer.count) {
                    try write(UnsafeRawBufferPointer(rebasing: buffer[data]), at: offset + UInt64(data.lowerBound))
                }
            }
        }
        try result.get()
    }

    public func write(_ bytes: some ContiguousBytes, at offset: UInt64) throws(FileSystemError) {
        let result: Result<Void, FileSystemError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(FileSystemError) in try write(buffer, at: offset) }
        }
        try result.get()
    }

    /// Allocates disk space for the first `size` bytes; see ``reserve(_:)-([Range<UInt64>])``.
    public func reserve(_ size: UInt64) throws(FileSystemError) {
        try reserve([0..<size])
    }

    /// Allocates disk space for the byte ranges still to be written (`fallocate`), without
    /// changing what reads return. Where the file system cannot, nothing happens. Ranges
    /// larger than the free space throw at once, before anything is allocated: allocating
    /// what there is would fill the disk for everyone until the attempt gives up.
    public func reserve(_ ranges: [Range<UInt64>]) throws(FileSystemError) {
        let size = ranges.reduce(UInt64(0)) { $0 + UInt64($1.count) }
        guard size > 0 else { return }
        var info = statvfs()
        if fstatvfs(fd, &info) == 0 {
            let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
            guard free >= size else {
                throw FileSystemError(.ioError(errno: ENOSPC),
                    "'\(path)': \(String(cString: strerror(ENOSPC))): \(size) bytes needed, \(free) free; free some space and it is retried")
            }
        }
        for range in ranges where !range.isEmpty {
            guard LinuxCalls.allocate(fd, offset: range.lowerBound, length: UInt64(range.count)) == 0 else {
                let code = errno
                guard code != EOPNOTSUPP && code != ENOSYS else { return }
                throw FileSystemError.posix(code, "reserve space for", path)
            }
        }
        if size >= Self.directSize { direct.open(reopening: fd) }
    }

    /// Reads `size` bytes at `offset` (what was written there; zeros in a hole).
    public func read(_ size: Int, at offset: UInt64) throws(FileSystemError) -> Data {
        try CacheLineAlignedIO.read(fd, at: offset, count: size, path: path)
    }

    /// Sets the final size (for preallocating, or truncating a copy of an old version).
    public func truncate(to size: UInt64) throws(FileSystemError) {
        if ftruncate(fd, off_t(size)) != 0 { throw FileSystemError.posix(errno, "truncate", path) }
    }
}

/// One temp file to move into place by `SafeFileSystem.commit(_:)`.
public struct PendingCommit: Sendable {
    /// What the file may replace at its path.
    public enum Replacing: Sendable, Equatable {
        case anything
        /// Only where nothing is (`.alreadyExists` otherwise).
        case nothing
        /// Only the file with these stat facts (`.alreadyExists` otherwise).
        case unchanged(FileStat)
    }

    public var file: TempFile
    public var path: RelativePath
    public var permissions: Permissions
    /// Modification time in nanoseconds since 1970.
    public var mtimeNs: Int64
    /// The `user.` extended attributes to give it; nil: none are written.
    public var attributes: ExtendedAttributes?
    public var replacing: Replacing
    /// Where set, the file this one replaces is kept in the history under this name (a hard
    /// link, taken just before the rename); where it cannot be kept, nothing is replaced.
    public var keepReplacedAs: String?

    public init(file: TempFile, path: RelativePath, permissions: Permissions, mtimeNs: Int64, attributes: ExtendedAttributes? = nil,
                replacing: Replacing = .anything, keepReplacedAs: String? = nil) {
        self.file = file
        self.path = path
        self.permissions = permissions
        self.mtimeNs = mtimeNs
        self.attributes = attributes
        self.replacing = replacing
        self.keepReplacedAs = keepReplacedAs
    }
}

/// What `SafeFileSystem.commit(_:)` did: the stat facts of each file now in place (to record
/// as the scan baseline) and why the others failed.
public struct CommitResult: Sendable {
    public var committed: [RelativePath: FileStat] = [:]
    public var failures: [RelativePath: FileSystemError] = [:]
    /// Large files this commit replaced, still linked in `.ubiq/tmp/` under these names so
    /// that freeing their blocks does not hold up the rename; give them to
    /// `SafeFileSystem.removeReplaced` when convenient (a restart removes them too).
    public var replaced: [String] = []

    public init() {}
}
