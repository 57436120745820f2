import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// Three agents, each parted from the others while it saves: once they meet again every
/// device holds the very same records (a canonical dump compared byte for byte), merged per
/// attribute, with the delete winning over the edit that had not seen it.
@Suite(.serialized) struct RecordStoreThreeAgentTests {
    typealias Live = RecordStoreLiveTests

    /// Every record of the store, entity by entity, in one canonical text.
    static func dump(_ agent: AgentProcess) async throws -> String {
        try await agent.withClient { client in
            let store = RecordStore(client: client, container: Live.container, name: "todos")
            var lines: [String] = []
            for entity in ["List", "Task"] {
                for record in try await store.fetch(entity) {
                    let attributes = record.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    lines.append("\(record.key) " + attributes.joined(separator: " "))
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    @Test func devicesPartedWhileSavingEndWithTheSameRecordsMergedPerAttribute() async throws {
        let cluster = try await LiveCluster(["alpha", "beta", "gamma"])
        defer { cluster.stopAll() }
        let (a, b, c) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        // Beta and gamma reach alpha only through relays, which part all three at once.
        let relays = [try TCPRelay(to: a.port), try TCPRelay(to: a.port)]
        defer { for relay in relays { relay.close() } }
        b.peers = [relays[0].port]
        c.peers = [relays[1].port]
        func linked(_ wanted: Bool) async throws {
            try await waitUntil(wanted ? "the three agents to connect" : "the three agents to notice the cut") {
                let counts = [try await a.status(), try await b.status(), try await c.status()].map { $0.peers.filter(\.connected).count }
                return wanted ? counts == [2, 1, 1] : counts == [0, 0, 0]
            }
        }
        try await cluster.start()
        try await linked(true)

        let list = RecordKey(entity: try RecordName("List"), id: try RecordID("shopping"))
        try await Live.save([.insert(list, attributes: [Live.name("title"): Live.text("Shopping")]),
                             .insert(Live.key("milk"), attributes: [Live.name("title"): Live.text("milk"), Live.name("rank"): .value(.integer(1)),
                                                                    Live.name("done"): .value(.bool(false)), Live.name("list"): .reference(list)]),
                             .insert(Live.key("bread"), attributes: [Live.name("title"): Live.text("bread")])], on: a)
        try await waitUntil("every agent to hold the first records") {
            for agent in [b, c] where try await Live.records(agent).count != 2 { return false }
            return true
        }

        for relay in relays { relay.sever() }
        try await linked(false)
        // Each device on its own: alpha and beta rename milk (concurrent writes of one
        // attribute), beta ranks it, gamma ticks it off; gamma deletes bread, which beta edits.
        try await Live.save([.update(Live.key("milk"), attributes: [Live.name("title"): Live.text("milk (alpha)")])], on: a)
        try await Live.save([.update(Live.key("milk"), attributes: [Live.name("title"): Live.text("milk (beta)"), Live.name("rank"): .value(.integer(2))]),
                             .update(Live.key("bread"), attributes: [Live.name("title"): Live.text("rye bread")])], on: b)
        try await Live.save([.update(Live.key("milk"), attributes: [Live.name("done"): .value(.bool(true))]),
                             .delete(Live.key("bread")),
                             .insert(Live.key("eggs"), attributes: [Live.name("title"): Live.text("eggs"), Live.name("list"): .reference(list)])], on: c)
        let watcher = try await UbiqAgentClient.connect(socketPath: a.socket)
        let heard = Mutex<[RecordsDidImportNotice]>([])
        let imports = try await RecordStore(client: watcher, container: Live.container, name: "todos").imports()
        let listening = Task { for await notice in imports { heard.withLock { $0.append(notice) } } }
        defer { listening.cancel() }

        for relay in relays { relay.heal() }
        try await linked(true)
        var dumps: [String] = []
        try await waitUntil("the three agents to hold the same records, with every transaction imported") {
            dumps = [try await Self.dump(a), try await Self.dump(b), try await Self.dump(c)]
            var transactions: [Int?] = []
            for agent in [a, b, c] { transactions.append(try await agent.status().containers.first?.recordStores?.first?.transactions) }
            return Set(dumps).count == 1 && transactions == [4, 4, 4]
        }
        let records = try await Live.records(a)
        let milk = try #require(records[Live.key("milk")])
        // One of the two concurrent titles won, the same everywhere; the other attributes merged.
        #expect(["milk (alpha)", "milk (beta)"].map(Live.text).contains(milk[Live.name("title")] ?? Live.text("")))
        #expect(milk[Live.name("rank")] == .value(.integer(2)) && milk[Live.name("done")] == .value(.bool(true)))
        #expect(milk[Live.name("list")] == .reference(list))
        #expect(records[Live.key("bread")] == nil && records[Live.key("eggs")] != nil)
        // Alpha's subscriber heard the writes that lost: beta's edit of bread to the delete.
        try await waitUntil("alpha's subscriber to hear the imports") {
            heard.withLock { $0.flatMap(\.conflicts).contains { $0.kind == "deleted" && $0.id == "bread" } }
        }
        await watcher.close()
    }
}
