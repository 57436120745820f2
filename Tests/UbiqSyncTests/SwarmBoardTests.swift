import Testing
import UbiqModel
@testable import UbiqSync

/// What peers say they hold is kept within bounds, and a demoted peer's word counts for nothing.
@Suite struct SwarmBoardTests {
    let peer = DeviceID("PEER")
    let now = ContinuousClock.now

    func version(_ n: Int) -> SwarmVersion {
        SwarmVersion(container: try! ContainerID("ubiq.drive"), path: try! RelativePath("f\(n)"),
                     contentKey: String(repeating: "0", count: 64), size: 1 << 40)
    }

    @Test func wordAddsUpAndEndsWithTheVersionOrTheConnection() {
        let board = SwarmBoard()
        board.heard(SwarmProgress(version: version(0), held: RangeSet(0..<10)), from: peer)
        board.heard(SwarmProgress(version: version(0), held: RangeSet(10..<20)), from: peer)
        #expect(board.pieces(version(0), of: peer, at: now)?.held == RangeSet(0..<20))
        board.heard(SwarmProgress(version: version(0), held: RangeSet(), ended: true), from: peer)
        #expect(board.pieces(version(0), of: peer, at: now)?.held == nil)
        board.heard(SwarmProgress(version: version(1), held: RangeSet(0..<10)), from: peer)
        board.forget(peer)
        #expect(board.pieces(version(1), of: peer, at: now)?.held == nil)
    }

    @Test func claimsAddUpBesideWhatIsHeld() {
        let board = SwarmBoard()
        board.heard(SwarmProgress(version: version(0), held: RangeSet(), claimed: RangeSet(0..<10)), from: peer)
        board.heard(SwarmProgress(version: version(0), held: RangeSet(0..<10), claimed: RangeSet(10..<20)), from: peer)
        #expect(board.pieces(version(0), of: peer, at: now) == SwarmBoard.Pieces(held: RangeSet(0..<10), claimed: RangeSet(0..<20)))
    }

    @Test func wordOnTooManyVersionsOrTooScatteredIsDropped() {
        let board = SwarmBoard()
        for n in 0...SwarmBoard.maxVersions { board.heard(SwarmProgress(version: version(n), held: RangeSet(0..<1)), from: peer) }
        #expect(board.pieces(version(0), of: peer, at: now)?.held == nil)
        #expect(board.pieces(version(1), of: peer, at: now)?.held != nil)
        #expect(board.pieces(version(SwarmBoard.maxVersions), of: peer, at: now)?.held != nil)
        var scattered = RangeSet<UInt64>()
        for i in 0...UInt64(SwarmBoard.maxRanges) { scattered.insert(contentsOf: i * 2..<(i * 2 + 1)) }
        board.heard(SwarmProgress(version: version(1), held: scattered), from: peer)
        #expect(board.pieces(version(1), of: peer, at: now)?.held.ranges.count == nil)
    }

    @Test func aDemotedPeersWordCountsForNothingForAWhile() {
        let board = SwarmBoard()
        board.heard(SwarmProgress(version: version(0), held: RangeSet(0..<10)), from: peer)
        #expect(board.demote(peer, at: now))
        #expect(!board.demote(peer, at: now), "a second demotion is not news")
        board.heard(SwarmProgress(version: version(0), held: RangeSet(0..<10)), from: peer)
        #expect(board.pieces(version(0), of: peer, at: now)?.held == nil)
        #expect(board.pieces(version(0), of: peer, at: now.advanced(by: SwarmBoard.demotion + .seconds(1)))?.held == RangeSet(0..<10))
    }
}
