#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import UbiqModel

/// The holes of a sparse file, found with `lseek(SEEK_DATA/SEEK_HOLE)`, so that chunking
/// steps over them instead of reading and hashing gigabytes of zeros.
///
/// Stepping over keeps the chunks exactly what reading would give: where a chunk starts
/// with at least `maximumSize` bytes of hole ahead, content-defined chunking sees only zeros
/// and cuts them at the same length every time (``zeroChunkSize``), so the chunk list does
/// not depend on how a file system stores zeros, and peers whose copy is not sparse agree.
struct HoleMap: Sendable {
    /// Holes of at least `maximumSize` bytes, in file order.
    private(set) var holes: [Range<UInt64>] = []
    let maximumSize: UInt64
    let zeroChunk: ChunkRef

    /// `SEEK_DATA` and `SEEK_HOLE` (Linux, `<unistd.h>` with `_GNU_SOURCE`, which Glibc's
    /// module does not define).
    static let seekData: Int32 = 3
    static let seekHole: Int32 = 4

    /// Past this many data regions the map is given up: a file so fragmented gains little.
    static let regionLimit = 1 << 16

    /// The map of `fd`, or nil where it has no hole worth stepping over (or the file system
    /// cannot say).
    init?(fd: Int32, cdc: FastCDC) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return nil }
        let size = UInt64(info.st_size)
        maximumSize = UInt64(cdc.parameters.maximumSize)
        // A file with as many blocks as bytes has no hole; the check costs nothing.
        guard UInt64(info.st_blocks) * 512 + maximumSize <= size else { return nil }
        zeroChunk = Self.zeroChunk(cdc)
        var position: UInt64 = 0
        var regions = 0
        while position < size && regions < Self.regionLimit {
            let data = lseek(fd, off_t(position), Self.seekData)
            let holeEnd = data < 0 ? size : min(UInt64(data), size)  // ENXIO: only a hole is left
            if holeEnd - position >= maximumSize { holes.append(position..<holeEnd) }
            guard data >= 0, holeEnd < size else { break }
            let hole = lseek(fd, off_t(holeEnd), Self.seekHole)
            guard hole > 0 else { break }
            position = UInt64(hole)
            regions += 1
        }
        if holes.isEmpty { return nil }
    }

    /// How many chunks of zeros (each ``zeroChunk``'s size) start at `offset`, one after
    /// the other, each with at least `maximumSize` bytes of hole ahead of it.
    func zeroChunks(at offset: UInt64) -> Int {
        var low = 0, high = holes.count
        while low < high {
            let middle = (low + high) / 2
            if holes[middle].upperBound <= offset { low = middle + 1 } else { high = middle }
        }
        guard low < holes.count, holes[low].contains(offset) else { return 0 }
        let ahead = holes[low].upperBound - offset
        guard ahead >= maximumSize else { return 0 }
        return Int((ahead - maximumSize) / UInt64(zeroChunk.size)) + 1
    }

    /// Calls `body` with each chunk of zeros that starts at `offset` and follows (see
    /// ``zeroChunks(at:)``); returns where the next chunk starts, or nil when none does.
    func stepOver(at offset: UInt64, _ body: (ChunkRef) -> Void) -> UInt64? {
        let count = zeroChunks(at: offset)
        guard count > 0 else { return nil }
        var position = offset
        for _ in 0..<count {
            body(ChunkRef(offset: position, size: zeroChunk.size, hash: zeroChunk.hash))
            position += UInt64(zeroChunk.size)
        }
        return position
    }

    /// The chunk content-defined chunking cuts from a run of zeros at least `maximumSize`
    /// long (at offset 0).
    static func zeroChunk(_ cdc: FastCDC) -> ChunkRef {
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: cdc.parameters.maximumSize, alignment: 16)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        let size = cdc.cutPoint(in: UnsafeRawBufferPointer(zeros))
        return ChunkRef(offset: 0, size: UInt32(size), hash: ZeroChunks.hash(ofZeros: UInt32(size)))
    }
}
