import Foundation
import Logging
import Synchronization
import Testing
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTestSupport

/// The store over a real SQLite index: two devices' stores are linked by hand here (what a
/// peer session does), so each rule is shown without a network.
@Suite struct KeyValueStoreTests {
    let store = try! KeyValueStoreID("TEAMID.com.example.game")
    let dir = try! TempDirectory()
    let a = DeviceID("AAAA"), b = DeviceID("BBBB")

    /// A settable physical clock, in milliseconds.
    final class TestClock: Sendable {
        let now = Mutex<Int64>(1_795_000_000_000)
        func advance(_ ms: Int64) { now.withLock { $0 += ms } }
        var read: @Sendable () -> Int64 { { [self] in now.withLock { $0 } } }
    }

    func open(_ name: String, device: DeviceID, clock: TestClock = TestClock(), limits: KeyValueLimits = .iCloud,
              account: String = "account-1") throws -> KeyValueStore {
        try KeyValueStore(id: store, index: try SyncIndex(path: dir.appending("\(name).sqlite")), device: device,
                          account: account, limits: limits,
                          physicalTime: clock.read, logger: Logger(label: "test"))
    }

    /// Sends everything `from` holds after `after` to `to`, as one update; returns the sequence sent.
    @discardableResult
    func send(_ from: KeyValueStore, to: KeyValueStore, after: Int64 = 0) async throws -> Int64 {
        let batch = try from.entries(after: after, limit: 10_000)
        guard let last = batch.last?.sequence else { return after }
        try await to.receive(batch.map(\.entry), from: from.device, state: PeerIndexState(indexID: from.indexID, maxSequence: last))
        return last
    }

    func collect(_ stream: AsyncStream<KeyValueChange>, count: Int) async -> [KeyValueChange] {
        var result: [KeyValueChange] = []
        for await change in stream {
            result.append(change)
            if result.count == count { break }
        }
        return result
    }

    @Test func writesSurviveAReopen() async throws {
        let first = try open("a", device: a)
        try await first.set(["level": .integer(13), "name": .string("Ada"), "gone": .bool(true)])
        try await first.set(["gone": nil])
        let again = try open("a", device: a)
        #expect(await again.values() == ["level": .integer(13), "name": .string("Ada")])
        #expect(again.indexID == first.indexID)
    }

    @Test func anotherAccountsEntriesAreDroppedAndSubscribersAreTold() async throws {
        let first = try open("a", device: a)
        try await first.set(["level": .integer(13), "name": .string("Ada")])
        #expect(try await open("a", device: a).values().count == 2)
        let other = try open("a", device: a, account: "account-2")
        #expect(await other.values().isEmpty)
        #expect(other.indexID != first.indexID)
        for _ in 0..<2 {
            let notice = await collect(other.changes(), count: 1)
            #expect(notice == [KeyValueChange(store: store, reason: .accountChange, keys: ["level", "name"])])
        }
    }

    @Test func aRefusedWriteLeavesTheStoreExactlyAsBefore() async throws {
        let limits = KeyValueLimits(maxStoreBytes: 90, maxKeys: 3, maxKeyBytes: 8, maxValueBytes: 50)
        let s = try open("a", device: a, limits: limits)
        try await s.set(["x": .integer(1), "y": .integer(2)])
        let before = try SyncIndex(path: dir.appending("a.sqlite")).keyValueEntries(store)
        for bad: [String: PropertyListValue?] in [
            ["ok": .integer(3), "toolongkey": .integer(1)],
            ["ok": .integer(3), "big": .string(String(repeating: "x", count: 51))],
            ["p": .integer(1), "q": .integer(2)],
            ["x": .string(String(repeating: "x", count: 50)), "y": .string(String(repeating: "y", count: 50))],
        ] {
            await #expect(throws: KeyValueLimitError.self) { try await s.set(bad) }
            #expect(await s.values() == ["x": .integer(1), "y": .integer(2)])
            #expect(try SyncIndex(path: dir.appending("a.sqlite")).keyValueEntries(store) == before)
        }
    }

    @Test func aPeersWritesArriveAsInitialSyncThenRemoteChanges() async throws {
        let onA = try open("a", device: a), onB = try open("b", device: b)
        let notices = onB.changes()
        try await onA.set(["level": .integer(1)])
        let sent = try await send(onA, to: onB)
        try await onA.set(["level": .integer(2), "coins": .integer(5)])
        try await send(onA, to: onB, after: sent)
        let changes = await collect(notices, count: 2)
        #expect(changes.map(\.reason) == [.initialSyncChange, .remoteChange])
        #expect(changes.map(\.keys) == [["level"], ["coins", "level"]])
        #expect(await onB.values() == ["level": .integer(2), "coins": .integer(5)])
    }

    @Test func concurrentWritesEndIdenticalWithAConflictNoticeOnBoth() async throws {
        let clockA = TestClock(), clockB = TestClock()
        let onA = try open("a", device: a, clock: clockA), onB = try open("b", device: b, clock: clockB)
        try await onA.set(["level": .integer(0)])
        try await send(onA, to: onB)
        let sentB = try onB.entries(after: 0, limit: 100).last?.sequence ?? 0
        // Apart: A reaches 13, then B (later by the clock) plays level 1.
        try await onA.set(["level": .integer(13)])
        clockB.advance(60_000)
        try await onB.set(["level": .integer(1)])
        let noticesA = onA.changes(), noticesB = onB.changes()
        try await send(onA, to: onB, after: 1)
        try await send(onB, to: onA, after: sentB)
        let atA = await collect(noticesA, count: 1), atB = await collect(noticesB, count: 1)
        for notices in [atA, atB] {
            #expect(notices.first?.reason == .conflict)
            #expect(notices.first?.conflicts == [.init(key: "level", winner: .integer(1), winnerDevice: b, loser: .integer(13), loserDevice: a)])
        }
        #expect(await onA.values() == ["level": .integer(1)])
        #expect(try SyncIndex(path: dir.appending("a.sqlite")).keyValueEntry(store, "level")?.entry
            == SyncIndex(path: dir.appending("b.sqlite")).keyValueEntry(store, "level")?.entry)
    }

    @Test func concurrentWritesOverTheQuotaLeaveTheSameStateAndSayItEverywhere() async throws {
        let limits = KeyValueLimits(maxStoreBytes: 100, maxKeys: 10, maxKeyBytes: 8, maxValueBytes: 100)
        let onA = try open("a", device: a, limits: limits), onB = try open("b", device: b, limits: limits)
        try await onA.set(["a": .string(String(repeating: "a", count: 60))])
        try await onB.set(["b": .string(String(repeating: "b", count: 60))])
        let noticesA = onA.changes(), noticesB = onB.changes()
        try await send(onA, to: onB)
        try await send(onB, to: onA)
        for notices in [noticesA, noticesB] {
            #expect(await collect(notices, count: 2).map(\.reason) == [.initialSyncChange, .quotaViolationChange])
        }
        #expect(await onA.values() == onB.values())
        #expect(await onA.usage().bytes == 120)
        await #expect(throws: KeyValueLimitError.self) { try await onA.set(["c": .integer(1)]) }
        try await onA.set(["a": nil])
    }

    @Test func synchronizeWaitsForEveryConnectedPeer() async throws {
        let onA = try open("a", device: a)
        let session = ObjectIdentifier(TestClock())
        await onA.peerJoined(b, session: session, acknowledged: 0)
        try await onA.set(["level": .integer(13)])
        let early = await onA.synchronize(timeout: .milliseconds(50))
        #expect(early == KeyValueSyncOutcome(acknowledged: [], pending: [b]))
        async let waited = onA.synchronize(timeout: .seconds(30))
        await onA.acknowledged(by: b, session: session, indexID: onA.indexID, sequence: 1)
        #expect(await waited == KeyValueSyncOutcome(acknowledged: [b], pending: []))
        // An acknowledgement of another index (the peer's view before a reset) does not count.
        try await onA.set(["level": .integer(14)])
        await onA.acknowledged(by: b, session: session, indexID: onA.indexID &+ 1, sequence: 99)
        #expect(await onA.synchronize(timeout: .milliseconds(50)).pending == [b])
        await onA.peerLeft(b, session: session)
        #expect(await onA.synchronize(timeout: .seconds(30)) == KeyValueSyncOutcome(acknowledged: [], pending: []))
    }
}
