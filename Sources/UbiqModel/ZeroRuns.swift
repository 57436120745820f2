/// Where a buffer holds runs of zero bytes, in whole blocks, so that the bytes of a sparse
/// file's holes are neither sent nor written: a chunk that runs from data into a hole
/// carries its zeros as lengths, and a staged file leaves them unwritten, as holes.
public enum ZeroRuns {
    /// The runs of zeros in `bytes` made of whole `blockSize` blocks, where block boundaries
    /// fall at multiples of `blockSize` counted from `alignedTo` bytes before the buffer
    /// (its offset in the file: file system blocks are aligned in the file, not in the
    /// buffer). Adjacent zero blocks make one run; a run at the end of the buffer may end in
    /// a partial block when `partialEnd` is true. Ranges are indices into `bytes`.
    public static func find(in bytes: UnsafeRawBufferPointer, alignedTo offset: UInt64 = 0, blockSize: Int = 4096,
                            partialEnd: Bool = false) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = Int((UInt64(blockSize) - offset % UInt64(blockSize)) % UInt64(blockSize))
        var open: Int?
        while start < bytes.count {
            let end = min(start + blockSize, bytes.count)
            let whole = end - start == blockSize || partialEnd
            if whole && isZero(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) {
                if open == nil { open = start }
            } else if let begun = open {
                runs.append(begun..<start)
                open = nil
            }
            start = end
        }
        if let begun = open { runs.append(begun..<start) }
        return runs
    }

    /// Every run of at least `minimum` (≥ 16) zero bytes in `bytes`, to the byte. Random data
    /// costs one 8-byte load per `minimum / 2` bytes: a long enough run covers a probe.
    public static func exact(in bytes: UnsafeRawBufferPointer, minimum: Int) -> [Range<Int>] {
        precondition(minimum >= 16)
        var runs: [Range<Int>] = []
        let step = minimum / 2
        var probe = 0
        while probe + 8 <= bytes.count {
            guard bytes.loadUnaligned(fromByteOffset: probe, as: UInt64.self) == 0 else {
                probe += step
                continue
            }
            var start = probe
            while start >= 8 && bytes.loadUnaligned(fromByteOffset: start - 8, as: UInt64.self) == 0 { start -= 8 }
            while start > 0 && bytes[start - 1] == 0 { start -= 1 }
            var end = probe + 8
            while end + 8 <= bytes.count && bytes.loadUnaligned(fromByteOffset: end, as: UInt64.self) == 0 { end += 8 }
            while end < bytes.count && bytes[end] == 0 { end += 1 }
            if end - start >= minimum { runs.append(start..<end) }
            probe = end + step
        }
        return runs
    }

    /// The ranges of `count` bytes outside `runs` (sorted, not overlapping).
    public static func complement(of runs: [Range<Int>], count: Int) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var position = 0
        for run in runs {
            if run.lowerBound > position { result.append(position..<run.lowerBound) }
            position = run.upperBound
        }
        if position < count { result.append(position..<count) }
        return result
    }

    /// Whether every byte is zero, eight at a time.
    public static func isZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) != 0 { return false }
            index += 8
        }
        while index < count {
            if bytes[index] != 0 { return false }
            index += 1
        }
        return true
    }
}
