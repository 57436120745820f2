/// Finds content-defined chunk boundaries: FastCDC with normalized chunking and cut-point
/// skipping (Xia et al., "FastCDC: a Fast and Efficient Content-Defined Chunking Approach
/// for Data Deduplication", USENIX ATC 2016, Algorithm 2).
///
/// Pure: it looks at bytes and returns lengths, and does no I/O or hashing, so the file
/// chunker and in-memory tests share one boundary rule.
public struct FastCDC: Sendable {
    public let parameters: ChunkerParameters

    public init(parameters: ChunkerParameters = .default) {
        self.parameters = parameters
    }

    /// The length of the chunk that starts at the beginning of `bytes`.
    ///
    /// `bytes` must hold at least `maximumSize` bytes unless it is the rest of the input:
    /// with fewer, the whole buffer is taken as the final chunk.
    public func cutPoint(in bytes: UnsafeRawBufferPointer) -> Int {
        var n = bytes.count
        let minimum = parameters.minimumSize
        if n <= minimum { return n }
        if n > parameters.maximumSize { n = parameters.maximumSize }
        let normal = min(parameters.averageSize, n)
        let maskS = parameters.maskS
        let maskL = parameters.maskL
        let src = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return GearTable.values.withUnsafeBufferPointer { table in
            let gear = table.baseAddress!
            var fp: UInt64 = 0
            var i = minimum
            while i < normal {
                fp = (fp &<< 1) &+ gear[Int(src[i])]
                if fp & maskS == 0 { return i }
                i += 1
            }
            while i < n {
                fp = (fp &<< 1) &+ gear[Int(src[i])]
                if fp & maskL == 0 { return i }
                i += 1
            }
            return n
        }
    }

    /// The lengths of all chunks of an in-memory buffer, in order; none for empty input.
    public func chunkLengths(of bytes: UnsafeRawBufferPointer) -> [Int] {
        var lengths: [Int] = []
        var start = 0
        while start < bytes.count {
            let length = cutPoint(in: UnsafeRawBufferPointer(rebasing: bytes[start...]))
            lengths.append(length)
            start += length
        }
        return lengths
    }
}
