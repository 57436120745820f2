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
        let src = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return GearTable.values.withUnsafeBufferPointer { gear in
            GearTable.shiftedValues.withUnsafeBufferPointer { shifted in
                var region = Region(src: src, gear: gear.baseAddress!, shifted: shifted.baseAddress!)
                if let cut = region.find(from: minimum, to: normal, mask: parameters.maskS) { return cut }
                if let cut = region.find(from: normal, to: n, mask: parameters.maskL) { return cut }
                return n
            }
        }
    }

    /// The gear hash over a run of bytes, two bytes per step as in the journal version of
    /// FastCDC (Xia et al., IEEE TPDS 2020, "rolling two bytes each time"): the first byte's
    /// hash is checked shifted left by one, which is exact because the masks leave bit 63 clear.
    private struct Region {
        let src: UnsafePointer<UInt8>
        let gear: UnsafePointer<UInt64>
        /// `gear[b] << 1`.
        let shifted: UnsafePointer<UInt64>
        var fp: UInt64 = 0

        @inline(__always)
        mutating func find(from start: Int, to end: Int, mask: UInt64) -> Int? {
            let maskShifted = mask &<< 1
            var i = start
            while i + 2 <= end {
                let doubled = fp &<< 2
                let first = doubled &+ shifted[Int(src[i])]
                fp = doubled &+ (shifted[Int(src[i])] &+ gear[Int(src[i + 1])])
                if first & maskShifted == 0 { return i }
                if fp & mask == 0 { return i + 1 }
                i += 2
            }
            if i < end {
                fp = (fp &<< 1) &+ gear[Int(src[i])]
                if fp & mask == 0 { return i }
            }
            return nil
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
