import Testing
import UbiqChunking
import UbiqModel
@testable import UbiqSync

/// Chunks shared by files of one group go to the first file that has them; the others leave
/// them out, with every place they take, and zeros are never shared.
@Suite struct SharedChunksTests {
    func hash(_ byte: UInt8) -> ChunkHash { ChunkHash(bytes: [UInt8](repeating: byte, count: 32))! }

    func file(_ path: String, _ chunks: [(UInt8, UInt32)]) -> Item {
        var offset: UInt64 = 0
        var refs: [ChunkRef] = []
        for (byte, size) in chunks {
            refs.append(ChunkRef(offset: offset, size: size, hash: byte == 0 ? ChunkHasher.hash([UInt8](repeating: 0, count: Int(size))) : hash(byte)))
            offset += UInt64(size)
        }
        return Item(path: try! RelativePath(path), kind: .file, size: offset, chunks: refs, version: VersionVector([DeviceID("A"): 1]),
                    modifiedBy: DeviceID("A"))
    }

    @Test func aChunkGoesToTheFirstFileThatHasItAndTheOthersTakeItFromThere() {
        let first = file("a", [(1, 10), (2, 20)])
        let second = file("b", [(1, 10), (3, 5), (1, 10)])
        let third = file("c", [(0, 40), (0, 40), (2, 20), (4, 7)])
        let shared = SharedChunks([first, second, third])
        #expect(shared.borrowed[first.path] == nil)
        let fromFirst = shared.borrowed[second.path]?[hash(1)]
        #expect(fromFirst?.path == first.path && fromFirst?.chunk.offset == 0 && fromFirst?.places == [0, 15])
        #expect(shared.borrowed[second.path]?.count == 1)
        #expect(shared.borrowed[third.path]?[hash(2)]?.chunk.offset == 10 && shared.borrowed[third.path]?[hash(2)]?.places == [80])
        #expect(shared.borrowed[third.path]?.count == 1, "zeros are shared with nobody")
    }

    @Test func aChunkOfAnotherSizeIsNotTakenForIt() {
        let shared = SharedChunks([file("a", [(1, 10)]), file("b", [(1, 11)])])
        #expect(shared.borrowed.isEmpty)
    }
}
