import Testing
import UbiqChunking
import UbiqModel

/// Chunk groups: boundaries set by the chunks themselves, and lists put back together only
/// from chunks that match what a group names.
@Suite struct ChunkGroupsTests {
    /// A chunk list with hashes that look random, sizes 1–64 KiB, offsets in order.
    func chunkList(_ count: Int, seed: UInt64) -> [ChunkRef] {
        var offset: UInt64 = 0
        return (0..<count).map { index in
            let bytes = randomBytes(count: 36, seed: seed &* 1_000_003 &+ UInt64(index))
            let size = UInt32(bytes[32]) << 8 | UInt32(bytes[33]) | 1
            defer { offset += UInt64(size) }
            return ChunkRef(offset: offset, size: size, hash: ChunkHash(bytes: Array(bytes[0..<32]))!)
        }
    }

    func relocated(_ chunks: some Collection<ChunkRef>) -> [ChunkRef] {
        var offset: UInt64 = 0
        return chunks.map { chunk in
            defer { offset += UInt64(chunk.size) }
            return ChunkRef(offset: offset, size: chunk.size, hash: chunk.hash)
        }
    }

    @Test func groupsCoverTheListInBoundedRuns() {
        let chunks = chunkList(8192, seed: 1)
        let ranges = ChunkGroups.ranges(chunks)
        #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == chunks.count)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(ranges.allSatisfy { !$0.isEmpty && $0.count <= ChunkGroups.maxChunks })
        // About 64 chunks each on average.
        #expect((64...256).contains(ranges.count), "\(ranges.count) groups")
        let groups = ChunkGroups.groups(chunks)
        #expect(groups.reduce(UInt64(0)) { $0 + $1.group.size } == chunks.reduce(UInt64(0)) { $0 + UInt64($1.size) })
    }

    @Test func aGroupEndsAtTheBoundEvenWithoutABoundaryHash() {
        let chunks = relocated(chunkList(600, seed: 2).map { chunk in
            var bytes = chunk.hash.bytes
            bytes[0] |= 1
            return ChunkRef(offset: 0, size: chunk.size, hash: ChunkHash(bytes: bytes)!)
        })
        #expect(ChunkGroups.ranges(chunks).map(\.count) == [256, 256, 88])
    }

    @Test func anInsertionChangesOnlyTheGroupsAroundIt() {
        let before = chunkList(8192, seed: 3)
        var edited = Array(before)
        edited.replaceSubrange(10..<11, with: chunkList(3, seed: 4))
        let after = relocated(edited)
        let old = Set(ChunkGroups.groups(before).map(\.group.hash))
        let new = ChunkGroups.groups(after).map(\.group)
        let changed = new.filter { !old.contains($0.hash) }
        #expect(changed.count <= 2, "\(changed.count) of \(new.count) groups changed")
        // The receiver rebuilds the rest from what it holds and needs only the changed ones.
        let held = ChunkGroups.catalog([before])
        #expect(ChunkGroups.missing(new, from: held).map(\.hash) == changed.map(\.hash))
        var lists = held
        for (group, range) in ChunkGroups.groups(after) where changed.contains(group) { lists[group.hash] = after[range] }
        #expect(ChunkGroups.assemble(new, from: lists) == after)
    }

    @Test func chunksThatDoNotMatchTheirGroupAreRefused() throws {
        let chunks = chunkList(1000, seed: 5)
        let groups = ChunkGroups.groups(chunks).map(\.group)
        let catalog = ChunkGroups.catalog([chunks])
        #expect(ChunkGroups.assemble(groups, from: catalog) == chunks)
        let first = try #require(groups.first)
        for tamper in 0..<3 {
            var lists = catalog
            var slice = Array(try #require(lists[first.hash]))
            switch tamper {
            case 0: slice[0].size += 1
            case 1: slice.swapAt(0, 1)
            default: slice.removeLast()
            }
            lists[first.hash] = slice[...]
            #expect(ChunkGroups.assemble(groups, from: lists) == nil, "tamper \(tamper)")
            #expect(ChunkGroups.missing(groups, from: lists) == [first])
        }
        var lists = catalog
        lists[first.hash] = nil
        #expect(ChunkGroups.assemble(groups, from: lists) == nil)
    }
}
