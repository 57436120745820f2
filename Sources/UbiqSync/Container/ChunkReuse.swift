import UbiqChunking
import UbiqModel

/// How a file's chunks are put in place without moving any byte twice (issue 20): a chunk of
/// zeros stays a hole (the staged file is given its size first, and such a chunk is neither
/// fetched nor written), and any other chunk that occurs more than once is fetched (or
/// copied) once, its later places filled from the first.
struct ChunkReuse: Sendable {
    /// The first place of each chunk to fetch or copy, in file order.
    var distinct: [ChunkRef] = []
    /// Later places of a chunk, each with the offset of its first place.
    var repeats: [(from: UInt64, chunk: ChunkRef)] = []
    /// Bytes left as holes.
    var holeBytes: UInt64 = 0

    init(_ chunks: [ChunkRef]) {
        var occurrences: [ChunkHash: Int] = [:]
        for chunk in chunks { occurrences[chunk.hash, default: 0] += 1 }
        var first: [ChunkHash: ChunkRef] = [:]
        for chunk in chunks {
            if ZeroChunks.isZeros(chunk) {
                holeBytes += UInt64(chunk.size)
            } else if occurrences[chunk.hash, default: 0] < 2 {
                distinct.append(chunk)
            } else if let earlier = first[chunk.hash], earlier.size == chunk.size {
                repeats.append((earlier.offset, chunk))
            } else {
                first[chunk.hash] = chunk
                distinct.append(chunk)
            }
        }
    }
}
