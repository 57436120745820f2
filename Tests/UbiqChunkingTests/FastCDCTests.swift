import Testing
@testable import UbiqChunking

@Suite struct FastCDCTests {
    let cdc = FastCDC()

    func lengths(_ bytes: [UInt8]) -> [Int] {
        bytes.withUnsafeBytes { cdc.chunkLengths(of: $0) }
    }

    func boundaries(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = 0
        for length in lengths(bytes) {
            offset += length
            offsets.append(offset)
        }
        return offsets
    }

    @Test func emptyInputHasNoChunks() {
        #expect(lengths([]).isEmpty)
    }

    @Test func shortInputIsOneChunk() {
        #expect(lengths([1, 2, 3]) == [3])
        #expect(lengths(randomBytes(count: 16 << 10, seed: 9)) == [16 << 10])
    }

    @Test func boundariesAreDeterministic() {
        let data = randomBytes(count: 4 << 20, seed: 1)
        #expect(lengths(data) == lengths(data))
        #expect(lengths(data).reduce(0, +) == data.count)
    }

    /// Pins the boundary rule (gear table, masks, cut-point skipping): a change here would
    /// give different chunks on devices running different builds.
    @Test func boundariesArePinned() {
        let data = randomBytes(count: 1 << 20, seed: 42)
        #expect(lengths(data) == pinnedLengths)
    }

    /// The two-bytes-per-step loop finds exactly the cut points of the paper's plain loop.
    @Test(arguments: [(64, 128, 1024), (100, 256, 700), (2048, 8192, 32768), (16 << 10, 64 << 10, 256 << 10)])
    func matchesTheOneBytePerStepAlgorithm(sizes: (Int, Int, Int)) throws {
        let p = try ChunkerParameters(minimumSize: sizes.0, averageSize: sizes.1, maximumSize: sizes.2)
        let fast = FastCDC(parameters: p)
        for seed in 20..<24 as Range<UInt64> {
            let data = randomBytes(count: (1 << 20) + Int(seed), seed: seed)
            data.withUnsafeBytes { buffer in
                var start = 0
                while start < buffer.count {
                    let rest = UnsafeRawBufferPointer(rebasing: buffer[start...])
                    let expected = referenceCutPoint(rest, p)
                    #expect(fast.cutPoint(in: rest) == expected)
                    start += expected
                }
            }
        }
    }

    /// Algorithm 2 of Xia et al. (2016), one byte per step.
    func referenceCutPoint(_ bytes: UnsafeRawBufferPointer, _ p: ChunkerParameters) -> Int {
        var n = bytes.count
        if n <= p.minimumSize { return n }
        if n > p.maximumSize { n = p.maximumSize }
        let normal = min(p.averageSize, n)
        var fp: UInt64 = 0
        var i = p.minimumSize
        while i < normal {
            fp = (fp &<< 1) &+ GearTable.values[Int(bytes[i])]
            if fp & p.maskS == 0 { return i }
            i += 1
        }
        while i < n {
            fp = (fp &<< 1) &+ GearTable.values[Int(bytes[i])]
            if fp & p.maskL == 0 { return i }
            i += 1
        }
        return n
    }

    @Test func gearTableIsPinned() {
        #expect(GearTable.values.count == 256)
        #expect(Set(GearTable.values).count == 256)
        #expect(GearTable.values[0] == pinnedGear0)
    }

    @Test func masksHaveTheRightBitCounts() {
        let p = ChunkerParameters.default
        #expect(p.maskS.nonzeroBitCount == 18)
        #expect(p.maskL.nonzeroBitCount == 14)
        #expect(p.maskS & 0xFFFF == 0 && p.maskL & 0xFFFF == 0)
    }

    @Test func chunksStayWithinBounds() {
        let p = ChunkerParameters.default
        let all = lengths(randomBytes(count: 16 << 20, seed: 2))
        for length in all.dropLast() {
            #expect(length >= p.minimumSize && length <= p.maximumSize)
        }
        #expect(all.last! <= p.maximumSize)
        let average = (16 << 20) / all.count
        #expect(average > 40 << 10 && average < 100 << 10, "average chunk \(average)")
    }

    @Test func zerosGiveMaximumChunks() {
        let all = lengths([UInt8](repeating: 0, count: 1 << 20))
        #expect(all == [256 << 10, 256 << 10, 256 << 10, 256 << 10])
    }

    @Test func insertionNearStartShiftsLaterBoundaries() {
        let original = randomBytes(count: 4 << 20, seed: 3)
        var edited = original
        edited.insert(contentsOf: randomBytes(count: 100, seed: 4), at: 5000)

        let before = boundaries(original)
        let after = Set(boundaries(edited))
        let kept = before.filter { after.contains($0 + 100) }
        #expect(before.count - kept.count <= 2, "lost \(before.count - kept.count) of \(before.count) boundaries")
        // Everything after the first few chunks is untouched.
        #expect(before.dropFirst(2).allSatisfy { after.contains($0 + 100) })
    }

    @Test func insertionChangesAtMostThreeChunks() {
        let chunker = FileChunker()
        let original = randomBytes(count: 4 << 20, seed: 5)
        var edited = original
        edited.insert(contentsOf: randomBytes(count: 100, seed: 6), at: 3000)
        let old = Set(chunker.chunks(of: original).map(\.hash))
        let new = chunker.chunks(of: edited).map(\.hash)
        #expect(new.filter { !old.contains($0) }.count <= 3)
    }

    @Test func overwriteChangesOnlyOverlappingChunks() {
        let chunker = FileChunker()
        let original = randomBytes(count: 4 << 20, seed: 7)
        var edited = original
        let start = 3 << 19, end = 5 << 19   // 1.5 MiB ..< 2.5 MiB
        edited.replaceSubrange(start..<end, with: randomBytes(count: end - start, seed: 8))

        let old = chunker.chunks(of: original)
        let new = chunker.chunks(of: edited)
        let overlapping = old.filter { Int($0.offset) < end && Int($0.offset) + Int($0.size) > start }
        let oldHashes = Set(old.map(\.hash))
        let changed = new.filter { !oldHashes.contains($0.hash) }
        #expect(changed.count <= overlapping.count + 2, "\(changed.count) changed, \(overlapping.count) overlapped")
        let newHashes = Set(new.map(\.hash))
        let lost = old.filter { !newHashes.contains($0.hash) }
        #expect(lost.allSatisfy { Int($0.offset) + Int($0.size) + (256 << 10) > start && Int($0.offset) < end + (256 << 10) })
    }

    @Test func smallerParametersWork() throws {
        let p = try ChunkerParameters(minimumSize: 2048, averageSize: 8192, maximumSize: 32768)
        let data = randomBytes(count: 1 << 20, seed: 10)
        let all = data.withUnsafeBytes { FastCDC(parameters: p).chunkLengths(of: $0) }
        #expect(all.dropLast().allSatisfy { $0 >= 2048 && $0 <= 32768 })
    }
}

// Recorded from this implementation; see boundariesArePinned.
let pinnedLengths = [
    74168, 70574, 72016, 23679, 74379, 100088, 82792, 134928, 66767, 59790, 82175, 89789, 82319, 35112,
]
let pinnedGear0: UInt64 = 535_136_606_001_844_482
