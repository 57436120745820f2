#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import UbiqModel

/// Splits a file into hashed chunks while reading it in large buffers, so memory stays the
/// same whatever the file's size (one buffer of `readSize + maximumSize` bytes).
public struct FileChunker: Sendable {
    public let cdc: FastCDC
    /// How much is read per system call.
    public let readSize: Int

    /// Files at least this large are split and hashed on two threads; nil for one thread.
    public let concurrencyThreshold: Int?

    public init(parameters: ChunkerParameters = .default, readSize: Int = 1 << 20, concurrencyThreshold: Int? = 8 << 20) {
        self.cdc = FastCDC(parameters: parameters)
        self.readSize = max(readSize, 4096)
        self.concurrencyThreshold = concurrencyThreshold
    }

    public var parameters: ChunkerParameters { cdc.parameters }

    /// Chunks the file at `path` (symbolic links at the last component are not followed).
    public func chunks(ofFileAt path: String) throws(ChunkingError) -> (chunks: [ChunkRef], size: UInt64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            throw ChunkingError(.ioError(errno: code), "cannot open '\(path)' for chunking: \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        return try chunks(ofFileDescriptor: fd)
    }

    /// Chunks an open file from offset 0 to its end (the descriptor's offset is not used).
    public func chunks(ofFileDescriptor fd: Int32) throws(ChunkingError) -> (chunks: [ChunkRef], size: UInt64) {
        var chunks: [ChunkRef] = []
        let size = try forEachChunk(ofFileDescriptor: fd) { chunks.append($0) }
        return (chunks, size)
    }

    /// Calls `body` with each chunk of an open file, in order, and returns the bytes read.
    ///
    /// Files of at least `concurrencyThreshold` bytes are split on a second thread while
    /// this one hashes, so chunking costs little more than SHA-256 alone.
    public func forEachChunk(
        ofFileDescriptor fd: Int32, _ body: (ChunkRef) -> Void
    ) throws(ChunkingError) -> UInt64 {
        var st = stat()
        let holes = HoleMap(fd: fd, cdc: cdc)
        if let threshold = concurrencyThreshold, fstat(fd, &st) == 0, st.st_size >= threshold {
            return try forEachChunkConcurrently(ofFileDescriptor: fd, holes: holes, body)
        }
        return try forEachCut(ofFileDescriptor: fd, holes: holes, zeros: body) { offset, bytes in
            body(ChunkRef(offset: offset, size: UInt32(bytes.count), hash: ChunkHasher.hash(buffer: bytes)))
            return true
        }
    }

    /// Reads the file in large buffers and calls `body` with each chunk's offset and bytes
    /// (valid only during the call) until it returns false; returns the file's size. Chunks
    /// of zeros in the `holes` go to `zeros` instead, unread.
    func forEachCut(
        ofFileDescriptor fd: Int32, holes: HoleMap? = nil, zeros: (ChunkRef) -> Void = { _ in },
        _ body: (UInt64, UnsafeRawBufferPointer) -> Bool
    ) throws(ChunkingError) -> UInt64 {
        #if os(Linux)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        #endif
        let maximum = cdc.parameters.maximumSize
        let capacity = readSize + maximum
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 4096)
        defer { buffer.deallocate() }
        let base = buffer.baseAddress!

        var bufferOffset: UInt64 = 0  // file offset of buffer[0]
        var start = 0                 // start of the next chunk in the buffer
        var end = 0                   // end of valid bytes in the buffer
        var atEnd = false
        while true {
            if let holes, let after = holes.stepOver(at: bufferOffset + UInt64(start), zeros) {
                (bufferOffset, start, end, atEnd) = (after, 0, 0, false)
                continue
            }
            while !atEnd && end - start < maximum {
                if start > 0 && capacity - end < readSize {
                    (base + 0).copyMemory(from: base + start, byteCount: end - start)
                    bufferOffset += UInt64(start)
                    end -= start
                    start = 0
                }
                let n = try Self.readSome(fd, into: base + end, count: capacity - end, at: bufferOffset + UInt64(end))
                if n == 0 { atEnd = true } else { end += n }
            }
            if start == end { break }
            let available = UnsafeRawBufferPointer(start: base + start, count: end - start)
            let length = cdc.cutPoint(in: available)
            guard body(bufferOffset + UInt64(start), UnsafeRawBufferPointer(rebasing: available[..<length])) else { break }
            start += length
        }
        return bufferOffset + UInt64(end)
    }

    /// Reads up to `count` bytes at `offset`, again after an interruption; 0 at the end.
    static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: UInt64) throws(ChunkingError) -> Int {
        while true {
            let n = pread(fd, buffer, count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw ChunkingError.reading(errno) }
        }
    }

    /// Chunks bytes already in memory, with the same boundaries a file of these bytes gets.
    public func chunks(of bytes: some ContiguousBytes) -> [ChunkRef] {
        bytes.withUnsafeBytes { buffer in
            var chunks: [ChunkRef] = []
            var start = 0
            for length in cdc.chunkLengths(of: buffer) {
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)])
                chunks.append(ChunkRef(offset: UInt64(start), size: UInt32(length), hash: ChunkHasher.hash(buffer: chunk)))
                start += length
            }
            return chunks
        }
    }
}
