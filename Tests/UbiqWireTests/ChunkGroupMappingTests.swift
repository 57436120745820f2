import Foundation
import Testing
import UbiqChunking
import UbiqModel
import UbiqWire

/// Protocol 2: large files' entries name chunk groups, checked on arrival, and chunk-list
/// answers fill them.
@Suite struct ChunkGroupMappingTests {
    let author = DeviceID("AUTHOR")

    func chunks(_ count: Int, seed: UInt8 = 0) -> [ChunkRef] {
        (0..<count).map { index in
            var bytes = [UInt8](repeating: seed, count: 32)
            bytes[0] = UInt8(truncatingIfNeeded: index &* 37 &+ 11)
            bytes[1] = UInt8(truncatingIfNeeded: index >> 8)
            return ChunkRef(offset: UInt64(index) * 1000, size: 1000, hash: ChunkHash(bytes: bytes)!)
        }
    }

    func file(_ count: Int) -> Item {
        Item(path: try! RelativePath("Documents/big.bin"), kind: .file, size: UInt64(count) * 1000, chunks: chunks(count),
             version: VersionVector([author: 4]), modifiedBy: author)
    }

    @Test func largeFilesAreNamedByGroupsOnlyWhenAsked() throws {
        let large = file(ChunkGroups.threshold + 50)
        let grouped = ItemMapping.fileInfo(large, sequence: 9, grouped: true)
        #expect(grouped.blocks.isEmpty && grouped.chunkGroups.count == ChunkGroups.groups(large.chunks).count)
        #expect(ItemMapping.fileInfo(large, sequence: 9).chunkGroups.isEmpty)
        #expect(ItemMapping.fileInfo(file(10), sequence: 9, grouped: true).blocks.count == 10)
        // Smaller on the wire by more than an order of magnitude.
        let groupedBytes: [UInt8] = try grouped.serializedBytes(), listedBytes: [UInt8] = try ItemMapping.fileInfo(large, sequence: 9).serializedBytes()
        #expect(groupedBytes.count * 10 < listedBytes.count)
    }

    @Test func anEntryWithGroupsIsFilledFromHeldLists() throws {
        let large = file(600)
        let info = try Ubiq_Wire_FileInfo(serializedBytes: ItemMapping.fileInfo(large, sequence: 9, grouped: true).serializedBytes() as [UInt8])
        let announced = try ItemMapping.announced(info)
        #expect(announced.sequence == 9 && announced.item.chunks.isEmpty && !announced.groups.isEmpty)
        #expect(announced.resolved(from: ChunkGroups.catalog([large.chunks])) == large)
        #expect(announced.resolved(from: [:]) == nil)
        #expect(announced.missing(from: [:]).count == announced.groups.count)
        // Where a whole list is expected, groups are refused.
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidChunks }
    }

    @Test func implausibleGroupsAreRefused() throws {
        let base = ItemMapping.fileInfo(file(600), sequence: 1, grouped: true)
        let tampers: [(inout Ubiq_Wire_FileInfo) -> Void] = [
            { $0.size += 1 },
            { $0.chunkGroups[0].hash = Data(repeating: 1, count: 5) },
            { $0.chunkGroups[0].chunks = 0 },
            { $0.chunkGroups[0].chunks = UInt32(ChunkGroups.maxChunks + 1) },
            { $0.chunkGroups[0].size = UInt64($0.chunkGroups[0].chunks) - 1 },
            { $0.chunkGroups[0].size = UInt64.max; $0.chunkGroups[1].size = 2 },
            { $0.blocks = [Ubiq_Wire_Block()] },
            { $0.kind = .directory },
            { $0.deleted = true },
        ]
        for (index, tamper) in tampers.enumerated() {
            var info = base
            tamper(&info)
            #expect(throws: WireError.self, "tamper \(index)") { try ItemMapping.announced(info) }
        }
    }

    @Test func aChunkListAnswerHoldsTheGroupsStillThere() throws {
        let large = file(600)
        let groups = ChunkGroups.groups(large.chunks).map(\.group)
        let gone = ChunkGroup(hash: ChunkHash(bytes: [UInt8](repeating: 9, count: 32))!, count: 1, size: 1)
        let request = ChunkListMapping.request(id: 4, container: try ContainerID("T.a.b"), path: large.path, groups: [groups[1], gone, groups[0]])
        let response = ChunkListMapping.response(to: request, chunks: large.chunks)
        #expect(response.id == 4)
        #expect(response.groups.map(\.hash) == [Data(groups[1].hash.bytes), Data(groups[0].hash.bytes)])
        let lists = ChunkListMapping.lists(try Ubiq_Wire_ChunkListResponse(serializedBytes: response.serializedBytes() as [UInt8]))
        #expect(ChunkGroups.missing(Array(groups[0...1]), from: lists).isEmpty)
        #expect(lists[gone.hash] == nil)
        // A group with a bad entry counts as missing.
        var tampered = response
        tampered.groups[0].chunks[3].size = 0
        #expect(ChunkListMapping.lists(tampered)[groups[1].hash] == nil)
    }
}
