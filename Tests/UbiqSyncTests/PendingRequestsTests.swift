import Testing
@testable import UbiqSync

/// The bookkeeping of a session's requests: each answer reaches its own waiter once, late
/// and unknown answers reach nobody, and a timeout marks the peer as stalled for a while.
@Suite struct PendingRequestsTests {
    typealias Table = PendingRequests<String, ContinuousClock.Instant>
    let start = ContinuousClock.now

    @Test func eachAnswerReachesItsWaiterOnce() {
        var table = Table(stallMemory: .seconds(120))
        let first = table.open("first"), second = table.open("second")
        #expect(first != second && table.count == 2)
        #expect(table.answered(second) == "second")
        #expect(table.answered(second) == nil, "a second answer with the same ID")
        #expect(table.answered(99) == nil, "an answer never asked for")
        #expect(table.answered(first) == "first" && table.count == 0)
    }

    @Test func aTimeoutMarksThePeerStalledForAWhileAndALateAnswerFindsNoWaiter() {
        var table = Table(stallMemory: .seconds(120))
        let id = table.open("slow")
        #expect(!table.stalled(at: start))
        #expect(table.timedOut(id, at: start) == "slow")
        #expect(table.answered(id) == nil)
        #expect(table.stalled(at: start + .seconds(119)))
        #expect(!table.stalled(at: start + .seconds(120)))
    }

    @Test func aWithdrawnRequestDoesNotCountAsAStall() {
        var table = Table(stallMemory: .seconds(120))
        let id = table.open("cancelled")
        #expect(table.withdrawn(id) == "cancelled")
        #expect(table.timedOut(id, at: start) == nil)
        #expect(!table.stalled(at: start))
    }

    @Test func endingGivesBackEveryWaiterAndIDsAreNotReused() {
        var table = Table(stallMemory: .seconds(1))
        let ids = ["a", "b", "c"].map { table.open($0) }
        #expect(table.endAll().sorted() == ["a", "b", "c"] && table.count == 0)
        #expect(table.open("d") > ids.max()!)
    }
}
