import Testing
import UbiqModel

@Suite struct ZeroRunsTests {
    static func buffer(_ blocks: [UInt8], blockSize: Int = 16, tail: Int = 0) -> [UInt8] {
        blocks.flatMap { [UInt8](repeating: $0, count: blockSize) } + [UInt8](repeating: 0, count: tail)
    }

    @Test func adjacentZeroBlocksMakeOneRun() {
        let bytes = Self.buffer([1, 0, 0, 2, 0, 3])
        let runs = bytes.withUnsafeBytes { ZeroRuns.find(in: $0, blockSize: 16) }
        #expect(runs == [16..<48, 64..<80])
        #expect(ZeroRuns.complement(of: runs, count: bytes.count) == [0..<16, 48..<64, 80..<96])
    }

    /// Blocks are counted from the file's start: a buffer written at offset 8 has its first
    /// whole block 8 bytes in, and a lone zero byte in a block keeps the block.
    @Test func blocksFollowTheFileOffsetNotTheBuffer() {
        var bytes = [UInt8](repeating: 0, count: 8 + 48)
        bytes[8 + 20] = 7
        let runs = bytes.withUnsafeBytes { ZeroRuns.find(in: $0, alignedTo: 8, blockSize: 16) }
        #expect(runs == [8..<24, 40..<56])
    }

    /// Runs to the byte, wherever they start, found by probes: a run just long enough
    /// between any two probes, at the start and at the end.
    @Test func exactRunsAreFoundWhereverTheyLie() {
        for start in [0, 1, 7, 100, 1000] {
            for length in [63, 64, 65, 200] {
                var bytes = [UInt8](repeating: 0xA5, count: 1300)
                for index in start..<min(start + length, bytes.count) { bytes[index] = 0 }
                let end = min(start + length, bytes.count)
                let expected = end - start >= 64 ? [start..<end] : []
                #expect(bytes.withUnsafeBytes { ZeroRuns.exact(in: $0, minimum: 64) } == expected, "\(length) zeros at \(start)")
            }
        }
        var twoRuns = [UInt8](repeating: 0, count: 300)
        twoRuns[150] = 1
        #expect(twoRuns.withUnsafeBytes { ZeroRuns.exact(in: $0, minimum: 64) } == [0..<150, 151..<300])
    }

    @Test func aPartialLastBlockCountsOnlyWhenAsked() {
        let bytes = Self.buffer([1, 0], tail: 5)
        #expect(bytes.withUnsafeBytes { ZeroRuns.find(in: $0, blockSize: 16) } == [16..<32])
        #expect(bytes.withUnsafeBytes { ZeroRuns.find(in: $0, blockSize: 16, partialEnd: true) } == [16..<37])
        #expect([UInt8]().withUnsafeBytes { ZeroRuns.find(in: $0) }.isEmpty)
    }

    @Test func everyNonZeroByteIsSeen() {
        for index in 0..<37 {
            var bytes = [UInt8](repeating: 0, count: 37)
            bytes[index] = 0x80
            #expect(!bytes.withUnsafeBytes { ZeroRuns.isZero($0) }, "byte \(index)")
        }
        #expect([UInt8](repeating: 0, count: 37).withUnsafeBytes { ZeroRuns.isZero($0) })
    }
}
