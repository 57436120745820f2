import Foundation
import NIOCore
import Testing
import UbiqWire

/// Zeros sent as lengths come back as the same bytes, survive framing, and a peer's runs
/// that do not fit the request are refused.
@Suite struct ChunkZeroRunsTests {
    static func run(_ offset: UInt64, _ length: UInt64) -> Ubiq_Wire_ZeroRun {
        .with {
            $0.offset = offset
            $0.length = length
        }
    }

    /// Data, 12 KiB of zeros, data, 5000 zeros to the end: both runs leave the bytes.
    @Test func zerosLeaveAndComeBack() throws {
        let head = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) })
        let bytes = head + Data(count: 12 << 10) + Data([9, 9, 9]) + Data(count: 5000)
        let (data, runs) = try #require(ChunkZeroRuns.elide(bytes))
        #expect(data.count < 5100)
        #expect(runs.count == 2)
        #expect(try ChunkZeroRuns.restore(data, runs: runs, limit: bytes.count) == bytes)
        #expect(ChunkZeroRuns.elide(head) == nil)
    }

    @Test func runsSurviveTheFrame() throws {
        let bytes = Data([1, 2, 3]) + Data(count: 64 << 10) + Data([4])
        let (data, runs) = try #require(ChunkZeroRuns.elide(bytes))
        let response = Ubiq_Wire_ChunkResponse.with {
            $0.id = 7
            $0.data = data
            $0.zeroRuns = runs
        }
        let frame = Ubiq_Wire_Envelope(.chunkResponse(response)).frame().frame
        let decoded = try Ubiq_Wire_Envelope(payload: frame.getSlice(at: 4, length: frame.readableBytes - 4)!)
        guard case .chunkResponse(let received) = decoded.message else {
            Issue.record("not a chunk response: \(decoded)")
            return
        }
        #expect(try ChunkZeroRuns.restore(received.data, runs: received.zeroRuns, limit: bytes.count) == bytes)
    }

    @Test(arguments: [
        [run(0, 0)],                       // empty
        [run(10, 4096), run(5, 4096)],     // out of order
        [run(0, 4096), run(4096, 4096)],   // touching
        [run(0, 1 << 40)],                 // past what was asked for
        [run(.max, 2)],                    // overflowing
        [run(200, 4096)],                  // past the bytes there are
    ])
    func runsThatDoNotFitAreRefused(runs: [Ubiq_Wire_ZeroRun]) {
        #expect(throws: WireError.self) { try ChunkZeroRuns.restore(Data(count: 100), runs: runs, limit: 1 << 20) }
    }
}
