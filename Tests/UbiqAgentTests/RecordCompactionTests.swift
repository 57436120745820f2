import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// Compaction with real agents: once three devices have imported the same transactions, a
/// baseline replaces the logs up to it on every device; a fourth device that joins
/// afterwards starts from the baseline and the logs after it and holds the same records;
/// saves go on as before.
@Suite(.serialized) struct RecordCompactionTests {
    typealias Live = RecordStoreLiveTests
    typealias Three = RecordStoreThreeAgentTests

    static func files(_ agent: AgentProcess, _ suffix: String) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: agent.path("Records/todos"))) ?? []).filter { $0.hasSuffix(suffix) }.sorted()
    }

    @Test func aBaselineReplacesTheLogsEverywhereAndADeviceJoiningLaterStartsFromIt() async throws {
        let cluster = try await LiveCluster(["alpha", "beta", "gamma", "delta"])
        defer { cluster.stopAll() }
        let (a, b, c, d) = (cluster.agents[0], cluster.agents[1], cluster.agents[2], cluster.agents[3])
        for agent in cluster.agents { agent.environment["UBIQ_TEST_RECORD_COMPACT_AFTER"] = "4" }
        for agent in [a, b, c] { try await agent.startAndWait() }
        try await waitUntil("the first three agents to connect") { try await a.status().peers.filter(\.connected).count == 2 }

        // Six inserts from the three devices in turn, and on beta an update of t0 and a delete of t1.
        for (n, agent) in [a, b, c, a, b, c].enumerated() {
            let key = Live.key("t\(n)")
            try await Live.save([.insert(key, attributes: [Live.name("n"): .value(.integer(Int64(n))), Live.name("by"): Live.text(agent.name)])], on: agent)
            if n == 4 { try await Live.save([.update(Live.key("t0"), attributes: [Live.name("n"): .value(.integer(100))]), .delete(Live.key("t1"))], on: agent) }
        }
        try await waitUntil("a baseline on every device, the logs it holds gone") {
            for agent in [a, b, c] {
                let baselines = Self.files(agent, ".ubiqbase"), logs = Self.files(agent, ".ubiqlog")
                if baselines.count != 1 || logs.count >= 7 { return false }
            }
            return Set([a, b, c].map { Self.files($0, ".ubiqbase") }).count == 1
        }
        var reference = ""
        try await waitUntil("the three to hold the same records, every transaction imported") {
            var dumps: Set<String> = []
            var imported: [Int?] = []
            for agent in [a, b, c] {
                dumps.insert(try await Three.dump(agent))
                imported.append(try await agent.status().containers.first?.recordStores?.first?.transactions)
            }
            reference = dumps.first ?? ""
            return dumps.count == 1 && imported == [7, 7, 7]
        }
        let records = try await Live.records(a)
        #expect(records.count == 5 && records[Live.key("t0")]?[Live.name("n")] == .value(.integer(100)) && records[Live.key("t1")] == nil)

        // Delta joins now: only the baseline and the logs after it are there to fetch.
        let logsLeft = Self.files(a, ".ubiqlog")
        try await d.startAndWait()
        try await waitUntil("delta to hold the same records") { try await Three.dump(d) == reference }
        #expect(Self.files(d, ".ubiqlog") == logsLeft)
        // And saves go on, from the newcomer too.
        try await Live.save([.update(Live.key("t2"), attributes: [Live.name("n"): .value(.integer(7))])], on: d)
        try await Live.save([.insert(Live.key("t9"), attributes: [Live.name("n"): .value(.integer(9))])], on: b)
        try await waitUntil("every device to hold the later saves") {
            var dumps: Set<String> = []
            for agent in [a, b, c, d] { dumps.insert(try await Three.dump(agent)) }
            let onA = try await Live.records(a)
            return dumps.count == 1 && onA[Live.key("t2")]?[Live.name("n")] == .value(.integer(7)) && onA[Live.key("t9")] != nil
        }
    }

    /// A store's compaction removes its own logs, more of them here than the mass-deletion
    /// hold lets pass without a person; the hold leaves the records scope alone, so the
    /// index follows the disk at once (it stayed held for ever, the benchmark's alpha never
    /// coming to rest).
    @Test func aCompactionThatRemovesManyLogsIsNotHeldForAPerson() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        a.environment["UBIQ_TEST_RECORD_COMPACT_AFTER"] = "120"
        try await a.startAndWait()
        for n in 0..<130 {
            try await Live.save([.insert(Live.key("t\(n)"), attributes: [Live.name("n"): .value(.integer(Int64(n)))])], on: a)
        }
        try await waitUntil("a baseline, more than 100 logs gone") {
            Self.files(a, ".ubiqbase").count == 1 && Self.files(a, ".ubiqlog").count < 30
        }
        let onDisk = { ((try? FileManager.default.subpathsOfDirectory(atPath: a.root)) ?? []).filter {
            var folder: ObjCBool = false
            return !$0.hasPrefix(".ubiq/") && FileManager.default.fileExists(atPath: a.path($0), isDirectory: &folder) && !folder.boolValue
        }.count }
        try await waitUntil("alpha's index to count the files its disk holds") {
            let status = try await a.status().containers.first
            return status?.heldDeletions == nil && status?.scanning == false && status?.files == onDisk()
        }
        #expect(try await a.status().containers.first?.heldDeletions == nil)
        #expect(try await Live.records(a).count == 130)
    }
}
