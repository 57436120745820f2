import Foundation
import Testing
import UbiqModel
@testable import UbiqSync
import UbiqWire

/// Runs of adjacent chunks travel in one request; the server bounds what one request can ask.
@Suite struct ChunkRunTests {
    func chunk(_ offset: UInt64, _ size: UInt32, _ byte: UInt8 = 1) -> ChunkRef {
        ChunkRef(offset: offset, size: size, hash: ChunkHash(bytes: [UInt8](repeating: byte, count: 32))!)
    }

    @Test func adjacentChunksFormRunsUpToTheByteBound() {
        let size = UInt32(ContainerSync.runBytes / 4)
        let chunks = (0..<10).map { chunk(UInt64($0) * UInt64(size), size) }
        #expect(ContainerSync.runs(of: chunks).map(\.count) == [4, 4, 2])
        // A gap (a chunk held locally) starts a new run.
        let gapped = [chunk(0, 10), chunk(10, 10), chunk(40, 10), chunk(50, 10)]
        #expect(ContainerSync.runs(of: gapped).map { $0.map(\.offset) } == [[0, 10], [40, 50]])
        #expect(ContainerSync.runs(of: []).isEmpty)
    }

    func request(first: UInt32, following: [UInt32], hashBytes: Int = 32) -> Ubiq_Wire_ChunkRequest {
        var request = Ubiq_Wire_ChunkRequest()
        request.offset = 100
        request.size = first
        request.hash = Data(repeating: 7, count: hashBytes)
        request.following = following.map { size in
            var next = Ubiq_Wire_ChunkEntry()
            next.size = size
            next.hash = Data(repeating: 8, count: 32)
            return next
        }
        return request
    }

    @Test func aRequestIsReadAsARunWithOffsets() throws {
        let run = try #require(PeerSession.run(of: request(first: 10, following: [20, 30])))
        #expect(run.map(\.offset) == [100, 110, 130])
        #expect(run.map(\.size) == [10, 20, 30])
    }

    @Test func hostileRequestsAreBounded() {
        // A bad first chunk is no request at all.
        #expect(PeerSession.run(of: request(first: 10, following: [], hashBytes: 5)) == nil)
        #expect(PeerSession.run(of: request(first: 0, following: [])) == nil)
        #expect(PeerSession.run(of: request(first: UInt32.max, following: [])) == nil)
        // Following chunks stop at the first empty one and at the byte bound.
        #expect(PeerSession.run(of: request(first: 10, following: [5, 0, 5]))?.count == 2)
        let huge = request(first: 1 << 20, following: Array(repeating: 1 << 20, count: 10_000))
        let run = PeerSession.run(of: huge) ?? []
        #expect(run.reduce(0) { $0 + UInt64($1.size) } <= PeerSession.maxRunBytes)
        #expect(run.count == 4)
    }
}
