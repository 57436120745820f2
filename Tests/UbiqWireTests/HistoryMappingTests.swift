import Foundation
import Testing
import UbiqChunking
import UbiqModel
import UbiqWire

@Suite struct HistoryMappingTests {
    static let author = DeviceID("AUTHOR")

    static func entry(_ id: Int64, chunks count: Int, path: String = "Documents/big.bin") -> HistoryEntry {
        let chunks = (0..<count).map { index in
            ChunkRef(offset: UInt64(index) * 1000, size: 1000, hash: ChunkHasher.hash(Data("chunk \(index)".utf8)))
        }
        let item = Item(path: try! RelativePath(path), kind: .file, size: UInt64(count) * 1000, mtime: 77, chunks: chunks,
                        version: VersionVector([author: UInt64(id)]), modifiedBy: author)
        return HistoryEntry(id: id, item: item, name: "local-name", keptAt: 1_234, reason: .deleted, by: author)
    }

    static func wire(_ response: Ubiq_Wire_HistoryResponse) throws -> Ubiq_Wire_HistoryResponse {
        try Ubiq_Wire_HistoryResponse(serializedBytes: response.serializedBytes() as [UInt8])
    }

    /// Asked for by id, a version travels whole; listed, a large file names chunk groups and
    /// arrives without its chunk list, with everything else.
    @Test func versionsTravelWholeWhenAskedForAndListedWithoutTheirChunks() throws {
        let entries = [Self.entry(2, chunks: 3000), Self.entry(1, chunks: 2, path: "Documents/small.txt")]
        let asked = HistoryMapping.request(id: 5, container: try ContainerID("TEAM.app"), path: entries[0].path, versions: [2])
        let answer = HistoryMapping.response(to: asked, entries: [entries[0]], since: 100)
        let whole = HistoryMapping.entries(try Self.wire(answer), withChunks: true)
        var expected = entries[0]
        expected.name = ""
        #expect(whole.entries == [expected] && whole.since == 100 && !whole.truncated)

        let listing = HistoryMapping.request(id: 6, container: try ContainerID("TEAM.app"), path: nil)
        let response = HistoryMapping.response(to: listing, entries: entries, since: nil)
        let sizes = ((try response.serializedBytes() as [UInt8]).count, (try answer.serializedBytes() as [UInt8]).count)
        #expect(sizes.0 * 10 < sizes.1, "a listing names chunk groups, not 3000 chunks: \(sizes)")
        let listed = HistoryMapping.entries(try Self.wire(response), withChunks: false)
        #expect(listed.entries.map(\.id) == [2, 1] && listed.entries[0].item.chunks.isEmpty && listed.entries[0].item.size == 3_000_000)
        #expect(listed.entries[1].item.chunks == entries[1].item.chunks && listed.since == nil)
        // A listed entry without its chunk list is no answer to a request by id.
        #expect(HistoryMapping.entries(response, withChunks: true).entries.map(\.id) == [1])
    }

    /// A peer's bad versions are left out: no id, a path that escapes, a folder, a deletion.
    @Test func badVersionsAreLeftOut() throws {
        let good = HistoryMapping.keptVersion(Self.entry(3, chunks: 1), withChunks: true)
        var noID = good
        noID.id = 0
        var escapes = good
        escapes.item.path = "../outside"
        var folder = good
        folder.item.kind = .directory
        folder.item.blocks = []
        folder.item.size = 0
        var deleted = good
        deleted.item.deleted = true
        var badReason = good
        badReason.reason = .UNRECOGNIZED(9)
        let response = Ubiq_Wire_HistoryResponse.with { $0.versions = [noID, escapes, folder, deleted, badReason, good] }
        #expect(HistoryMapping.entries(response, withChunks: true).entries.map(\.id) == [3])
        #expect(throws: WireError.self) { try HistoryMapping.path(of: .with { $0.path = "/etc/passwd" }) }
        #expect(try HistoryMapping.path(of: .with { $0.path = "" }) == nil)
    }

    /// An answer stops below the frame limit and says so.
    @Test func answersAreTruncatedBelowTheFrameLimit() throws {
        let huge = (1...4).map { Self.entry($0, chunks: 100_000) }
        let request = HistoryMapping.request(id: 1, container: try ContainerID("TEAM.app"), path: huge[0].path, versions: [1, 2, 3, 4])
        let response = HistoryMapping.response(to: request, entries: huge, since: nil)
        #expect(response.truncated && !response.versions.isEmpty && response.versions.count < 4)
        #expect((try response.serializedBytes() as [UInt8]).count < Ubiq_Wire_Envelope.maxFrameSize)
    }
}
