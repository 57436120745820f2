import Testing
import UbiqChunking
import UbiqModel
@testable import UbiqSync

/// Each chunk of a file moves once: chunks of zeros stay holes, other repeats are filled
/// from their first place.
@Suite struct ChunkReuseTests {
    func chunk(_ offset: UInt64, _ bytes: [UInt8]) -> ChunkRef {
        ChunkRef(offset: offset, size: UInt32(bytes.count), hash: ChunkHasher.hash(bytes))
    }

    @Test func zerosAreHolesAndOtherRepeatsAreFetchedOnce() {
        let zeros = [UInt8](repeating: 0, count: 4096), data = [UInt8](repeating: 7, count: 4096)
        let other = [UInt8](repeating: 9, count: 100), lone = [UInt8](repeating: 0, count: 100)
        let chunks = [chunk(0, data), chunk(4096, zeros), chunk(8192, zeros), chunk(12288, data),
                      chunk(16384, other), chunk(16484, lone), chunk(16584, zeros), chunk(20680, data)]
        let reuse = ChunkReuse(chunks)
        #expect(reuse.distinct.map(\.offset) == [0, 16384])
        #expect(reuse.repeats.map(\.from) == [0, 0] && reuse.repeats.map(\.chunk.offset) == [12288, 20680])
        #expect(reuse.holeBytes == 3 * 4096 + 100)
        // Every byte of the file is covered once.
        let covered = reuse.distinct.map { UInt64($0.size) }.reduce(0, +) + reuse.repeats.map { UInt64($0.chunk.size) }.reduce(0, +) + reuse.holeBytes
        #expect(covered == chunks.map { UInt64($0.size) }.reduce(0, +))
    }

    @Test func aFileWithNoRepeatsIsFetchedAsItIs() {
        let chunks = (1...5).map { chunk(UInt64($0) * 10, [UInt8](repeating: UInt8($0), count: 10)) }
        let reuse = ChunkReuse(chunks)
        #expect(reuse.distinct == chunks && reuse.repeats.isEmpty && reuse.holeBytes == 0)
    }
}
