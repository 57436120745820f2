import Testing
import UbiqIndex
import UbiqModel
@testable import UbiqSync

/// What a session records of a peer's index: never past an entry that still waits for its
/// chunk lists (or a restart would skip it), a newer entry replaces a waiting one, and a peer
/// that leaves too many waiting is refused.
@Suite struct IncomingIndexTests {
    let notes = try! ContainerID("TEAMID.com.example.notes")
    let photos = try! ContainerID("TEAMID.com.example.photos")
    func p(_ raw: String) -> RelativePath { try! RelativePath(raw) }

    func take(_ incoming: inout IncomingIndex, _ entries: [(RelativePath, Int64)], in container: ContainerID) -> Bool {
        incoming.wait(for: entries.map { (path: $0.0, sequence: $0.1) }, in: container)
    }

    @Test func theRecordedSequenceStaysBelowEveryWaitingEntry() {
        var incoming = IncomingIndex()
        #expect(incoming.state(of: notes, indexID: 7, upTo: 10) == PeerIndexState(indexID: 7, maxSequence: 10))
        #expect(take(&incoming, [(p("Documents/big"), 12), (p("Documents/huge"), 15)], in: notes))
        incoming.saw(20, in: notes)
        #expect(incoming.state(of: notes, indexID: 7, upTo: incoming.lastSeen(in: notes)).maxSequence == 11)
        #expect(incoming.state(of: photos, indexID: 3, upTo: 20).maxSequence == 20, "another container is not held back")
        incoming.resolved(p("Documents/big"), in: notes)
        #expect(incoming.state(of: notes, indexID: 7, upTo: 20).maxSequence == 14)
        incoming.resolved(p("Documents/huge"), in: notes)
        #expect(incoming.state(of: notes, indexID: 7, upTo: 20).maxSequence == 20)
    }

    @Test func aNewerEntryReplacesAWaitingOne() {
        var incoming = IncomingIndex()
        #expect(take(&incoming, [(p("Documents/big"), 12)], in: notes))
        incoming.supersede(p("Documents/big"), in: notes)
        #expect(!incoming.isWaiting(p("Documents/big"), sequence: 12, in: notes), "its lists are dropped when they come")
        #expect(incoming.state(of: notes, indexID: 1, upTo: 30).maxSequence == 30)
        #expect(take(&incoming, [(p("Documents/big"), 31)], in: notes))
        #expect(incoming.isWaiting(p("Documents/big"), sequence: 31, in: notes))
        #expect(!incoming.isWaiting(p("Documents/big"), sequence: 12, in: notes))
    }

    @Test func theSequenceSeenOnlyGrows() {
        var incoming = IncomingIndex()
        incoming.saw(40, in: notes)
        incoming.saw(25, in: notes)
        #expect(incoming.lastSeen(in: notes) == 40 && incoming.lastSeen(in: photos) == 0)
    }

    @Test func aPeerThatLeavesTooManyEntriesWaitingIsRefused() {
        var incoming = IncomingIndex()
        let many = (0..<IncomingIndex.maxAwaiting).map { (p("Documents/f\($0)"), Int64($0 + 1)) }
        #expect(take(&incoming, many, in: notes))
        #expect(!take(&incoming, [(p("Documents/one-more"), 99_999)], in: photos))
        // The same path waiting again for a newer entry does not count twice.
        #expect(take(&incoming, [(p("Documents/f0"), 70_000)], in: notes))
        incoming.resolved(p("Documents/f1"), in: notes)
        #expect(take(&incoming, [(p("Documents/one-more"), 99_999)], in: photos))
    }
}
