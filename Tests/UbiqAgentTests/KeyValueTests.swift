import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// The key-value store between two real agents: values of every type, the limits, change
/// notices, conflicts while apart, clocks that disagree, and the seed's game.
@Suite(.serialized) struct KeyValueTests {
    static let everyType: [String: PropertyListValue] = [
        "bool": .bool(true), "integer": .integer(-9_007_199_254_740_993), "double": .double(2.0),
        "string": .string("Grüße ✓ \"quoted\""), "date": .date(secondsSince1970: 1_795_341_600.123),
        "data": .data((0...255).map { UInt8($0) }), "array": .array([.integer(1), .double(1.5), .string("x"), .bool(false)]),
        "nested": .dictionary([
            "inner": .dictionary(["list": .array([.dictionary(["deep": .data([0, 0, 1])]), .date(secondsSince1970: 0.001)])]),
            "empty": .array([]),
        ]),
    ]

    @Test func everyTypeRoundTripsThroughTheSocketAndAcrossAgentsAndRestarts() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        try await pair.start()
        try await pair.alpha.set(Self.everyType)
        #expect(try await pair.alpha.values() == Self.everyType)
        let synced = try await pair.alpha.kv { try await $0.synchronize(store: KeyValuePair.store) }
        #expect(synced.complete && synced.acknowledged.count == 1)
        // Acknowledged means stored: beta holds it all the moment synchronize returns.
        #expect(try await pair.beta.values() == Self.everyType)

        pair.beta.stop()
        try await pair.beta.startAndWait()
        #expect(try await pair.beta.values() == Self.everyType)
        let single = try await pair.beta.kv { try await $0.value(store: KeyValuePair.store, key: "nested") }
        #expect(single == Self.everyType["nested"])
    }

    @Test func theCommandLineReadsAndWritesValues() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        try await pair.alpha.startAndWait()
        let base = ["--socket", pair.alpha.socket, "--store", KeyValuePair.store.rawValue]
        try await AgentProcess.cli(["kv", "set", "level", "13"] + base)
        try await AgentProcess.cli(["kv", "set", "name", "Ada Lovelace"] + base)
        try await AgentProcess.cli(["kv", "set", "ratio", "2.0"] + base)
        try await AgentProcess.cli(["kv", "set", "seen", #"{"$date":"2026-11-22T10:00:00.250Z"}"#] + base)
        #expect(try await AgentProcess.cli(["kv", "get", "level"] + base) == "13\n")
        #expect(try await AgentProcess.cli(["kv", "get", "name"] + base) == "Ada Lovelace\n")
        #expect(try await pair.alpha.values() == [
            "level": .integer(13), "name": .string("Ada Lovelace"), "ratio": .double(2),
            "seen": .date(secondsSince1970: 1_795_341_600.25),
        ])
        let listing = try await AgentProcess.cli(["kv", "ls"] + base)
        #expect(listing.contains("ratio") && listing.contains("double") && listing.contains("4 keys of 1024"))
        let json = try JSONValue(parsing: try await AgentProcess.cli(["kv", "ls", "--json"] + base))
        #expect(json["values"]?["seen"] == ["$date": "2026-11-22T10:00:00.250Z"])
        try await AgentProcess.cli(["kv", "rm", "name", "ratio"] + base)
        #expect(try await pair.alpha.values().keys.sorted() == ["level", "seen"])
        await #expect(throws: (any Error).self) { try await AgentProcess.cli(["kv", "get", "name"] + base) }
    }

    /// A value near the 1 MB limit does not fit in one command-line argument.
    @Test func theCommandLineTakesALargeValueFromAFileOrStandardInput() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        try await pair.alpha.startAndWait()
        let base = ["--socket", pair.alpha.socket, "--store", KeyValuePair.store.rawValue]
        let text = String(repeating: "a line of notes\n", count: 56_000)
        let file = pair.directory.appending("notes.txt")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        try await AgentProcess.cli(["kv", "set", "notes", "--file", file] + base)
        #expect(try await pair.alpha.values()["notes"] == .string(String(text.dropLast())), "a file's last line break is not the value's")
        // The store's limit is 1 MB in all: the notes make room for the next one.
        try await AgentProcess.cli(["kv", "rm", "notes"] + base)
        let bytes = (0..<900_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        try await AgentProcess.cli(["kv", "set", "blob", "-", "--data"] + base, input: Data(bytes))
        try await AgentProcess.cli(["kv", "set", "greeting", "-"] + base, input: Data(#"{"en": "hello"}"#.utf8 + [10]))
        let values = try await pair.alpha.values()
        #expect(values["blob"] == .data(bytes))
        #expect(values["greeting"] == .dictionary(["en": .string("hello")]))
        // Not both, nor bytes that are not text without --data: refused, nothing written.
        await #expect(throws: (any Error).self) { try await AgentProcess.cli(["kv", "set", "x", "1", "--file", file] + base) }
        await #expect(throws: (any Error).self) { try await AgentProcess.cli(["kv", "set", "x", "-"] + base, input: Data([0xFF, 0xFE])) }
        #expect(try await pair.alpha.values().keys.sorted() == ["blob", "greeting"])
    }

    @Test func writesThatBreakALimitAreRefusedWhole() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        try await pair.alpha.startAndWait()
        try await pair.alpha.withClient { client in
            let store = KeyValuePair.store
            func refused(_ values: [String: PropertyListValue], _ code: RPCError.Code) async throws {
                let before = try await client.list(store: store)
                await #expect {
                    try await client.set(store: store, values)
                } throws: { error in
                    (error as? RPCError)?.code == code
                }
                #expect(try await client.list(store: store) == before)
            }
            try await client.set(store: store, ["ok": .integer(1)])
            try await refused(["fine": .bool(true), String(repeating: "k", count: 65): .bool(true)], .keyTooLong)
            try await client.set(store: store, [String(repeating: "k", count: 64): .bool(true)])
            try await refused(["fine": .bool(true), "big": .data([UInt8](repeating: 7, count: 1_000_001))], .valueTooLarge)
            try await client.set(store: store, ["big": .data([UInt8](repeating: 7, count: 600_000))])
            try await refused(["more": .data([UInt8](repeating: 8, count: 400_000))], .storeTooLarge)
            try await client.remove(store: store, keys: ["big", String(repeating: "k", count: 64)])

            var filler: [String: PropertyListValue] = [:]
            for i in 0..<1022 { filler["key\(i)"] = .integer(Int64(i)) }
            try await client.set(store: store, filler)
            #expect(try await client.list(store: store).usage.keys == 1023)
            try await client.set(store: store, ["the 1024th": .integer(1024)])
            try await refused(["the 1025th": .integer(1025)], .tooManyKeys)
            // Rewriting an existing key is still fine at the limit.
            try await client.set(store: store, ["key7": .string("seven")])
            #expect(try await client.list(store: store).usage.keys == 1024)
        }
    }

    @Test func aValueSetOnAlphaReachesASubscriberOnBeta() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        try await pair.start()
        let watcher = try await KeyValueWatcher(pair.beta)
        // A second subscription on the same connection adds nothing: each notice comes once.
        let _: KeyValueSubscribeResult = try await watcher.client.connection.call(
            ControlMethod.kvSubscribe.rawValue, params: KeyValueSubscribeParams(store: KeyValuePair.store))
        try await pair.alpha.set(["greeting": .string("hello")])
        let first = try await watcher.waitFor("the first notice on beta") { $0.keys == ["greeting"] }
        #expect(first.reason == "initialSyncChange")
        try await pair.alpha.set(["greeting": .string("again"), "count": .integer(2)])
        let second = try await watcher.waitFor("a remote change on beta") { $0.reason == "remoteChange" }
        #expect(second.keys == ["count", "greeting"])
        #expect(watcher.notices.count == 2)
        #expect(try await pair.beta.values() == ["greeting": .string("again"), "count": .integer(2)])
        await watcher.close()
    }

    /// The seed's example: alpha reaches level 13, beta plays level 1 while apart (and later
    /// by the clock, so its write wins the conflict), they meet again. The game on alpha
    /// re-asserts the highest level when told of a conflict, and both end at 13.
    @Test func theGameKeepsTheHighestLevelAfterAConflict() async throws {
        let pair = try await KeyValuePair(betaEnvironment: ["UBIQ_TEST_CLOCK_OFFSET_SECONDS": "60"])
        defer { pair.stop() }
        try await pair.start()
        try await pair.alpha.set(["level": .integer(0), "removed": .string("x")])
        _ = try await pair.alpha.kv { try await $0.synchronize(store: KeyValuePair.store) }
        let game = try await KeyValueWatcher(pair.alpha) { notice, client in
            guard notice.reason == "conflict", let conflict = notice.conflicts?.first(where: { $0.key == "level" }),
                  let winner = conflict.winner.integerValue, let loser = conflict.loser.integerValue, loser > winner
            else { return }
            try? await client.set(store: KeyValuePair.store, ["level": .integer(loser)])
        }
        let onBeta = try await KeyValueWatcher(pair.beta)

        try await pair.part()
        try await pair.alpha.set(["level": .integer(13)])
        try await pair.alpha.withClient { try await $0.remove(store: KeyValuePair.store, keys: ["removed"]) }
        try await pair.beta.set(["level": .integer(1), "removed": .string("kept by beta")])
        try await pair.rejoin()

        for watcher in [game, onBeta] {
            let notice = try await watcher.waitFor("a conflict notice") { $0.reason == "conflict" && $0.keys.contains("level") }
            let level = try #require(notice.conflicts?.first { $0.key == "level" })
            #expect(level.winner == 1 && level.loser == 13)
        }
        try await waitUntil("both agents to hold level 13") {
            let (a, b) = (try await pair.alpha.values(), try await pair.beta.values())
            return a == b && a["level"] == .integer(13)
        }
        // Beta's later write of the removed key beat alpha's removal, on both.
        #expect(try await pair.alpha.values()["removed"] == .string("kept by beta"))
        await game.close()
        await onBeta.close()
    }

    /// Beta's clock runs an hour behind. A write beta makes after seeing alpha's still wins
    /// (causality), and concurrent writes still end identical on both, with the notice.
    @Test func aCausallyLaterWriteWinsWithAClockAnHourBehind() async throws {
        let pair = try await KeyValuePair(betaEnvironment: ["UBIQ_TEST_CLOCK_OFFSET_SECONDS": "-3600"])
        defer { pair.stop() }
        try await pair.start()
        try await pair.alpha.set(["colour": .string("red")])
        _ = try await pair.alpha.kv { try await $0.synchronize(store: KeyValuePair.store) }
        try await pair.beta.set(["colour": .string("blue")])
        let synced = try await pair.beta.kv { try await $0.synchronize(store: KeyValuePair.store) }
        #expect(synced.complete)
        #expect(try await pair.alpha.values()["colour"] == .string("blue"))

        let watchers = [try await KeyValueWatcher(pair.alpha), try await KeyValueWatcher(pair.beta)]
        try await pair.part()
        try await pair.alpha.set(["colour": .string("green")])
        try await pair.beta.set(["colour": .string("yellow")])
        try await pair.rejoin()
        for watcher in watchers {
            let notice = try await watcher.waitFor("a conflict notice") { $0.reason == "conflict" }
            #expect(notice.keys == ["colour"])
        }
        try await waitUntil("both agents to agree") {
            try await pair.alpha.values() == pair.beta.values()
        }
        for watcher in watchers { await watcher.close() }
    }

    /// The device leaves its account and joins another: the old account's values go, and a
    /// subscriber is told with `accountChange`.
    @Test func anAccountChangeEmptiesTheStoreAndSaysSo() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        try await pair.alpha.startAndWait()
        try await pair.alpha.set(["level": .integer(13), "name": .string("Ada")])
        pair.alpha.stop()
        try await AgentProcess.cli(["account", "leave", "--state", pair.alpha.state])
        try await pair.alpha.createAccount()
        try await pair.alpha.startAndWait()
        let watcher = try await KeyValueWatcher(pair.alpha)
        let notice = try await watcher.waitFor("the account change notice") { $0.reason == "accountChange" }
        #expect(notice.keys == ["level", "name"])
        #expect(try await pair.alpha.values().isEmpty)
        await watcher.close()
    }

    /// A–B–C in a line: entries are relayed like index items, so C gets A's write and A gets
    /// C's, though they never meet.
    @Test func entriesAreRelayedAlongALine() async throws {
        let cluster = try await LiveCluster(["alpha", "beta", "gamma"], links: [[], [0], [1]])
        defer { cluster.stopAll() }
        for agent in cluster.agents { agent.extraArguments = ["--kvstore", KeyValuePair.store.rawValue] }
        try await cluster.start()
        try await cluster.waitConnected()
        let (a, c) = (cluster.agents[0], cluster.agents[2])
        try await a.set(["from alpha": .integer(1)])
        try await c.set(["from gamma": .integer(3)])
        let expected: [String: PropertyListValue] = ["from alpha": .integer(1), "from gamma": .integer(3)]
        try await waitUntil("all three to hold both writes") {
            for agent in cluster.agents where try await agent.values() != expected { return false }
            return true
        }
    }
}
