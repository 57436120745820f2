import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// Record stores against real agents: transactions saved on two devices while they are
/// parted merge per attribute once they meet again, a delete wins over an edit it had not
/// seen, both end with the same records, and a subscriber hears each import.
@Suite(.serialized) struct RecordStoreLiveTests {
    static let container = AgentProcess.defaultContainer
    static func key(_ id: String) -> RecordKey { RecordKey(entity: try! RecordName("Task"), id: try! RecordID(id)) }
    static func name(_ raw: String) -> RecordName { try! RecordName(raw) }
    static func text(_ raw: String) -> RecordValue { .value(.string(raw)) }

    static func records(_ agent: AgentProcess) async throws -> [RecordKey: [RecordName: RecordValue]] {
        try await agent.withClient { client in
            Dictionary(uniqueKeysWithValues: try await RecordStore(client: client, container: container, name: "todos").fetch("Task").map { ($0.key, $0.values) })
        }
    }

    static func save(_ changes: [RecordChange], on agent: AgentProcess) async throws {
        _ = try await agent.withClient { try await RecordStore(client: $0, container: container, name: "todos").save(changes) }
    }

    @Test func transactionsSavedWhilePartedMergeAlikeAndASubscriberHearsEachImport() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        let (a, b) = (pair.alpha, pair.beta)
        try await pair.start()
        let watcher = try await UbiqAgentClient.connect(socketPath: b.socket)
        let heard = Mutex<[RecordsDidImportNotice]>([])
        let imports = try await RecordStore(client: watcher, container: Self.container, name: "todos").imports()
        let listening = Task { for await notice in imports { heard.withLock { $0.append(notice) } } }
        defer { listening.cancel() }

        try await Self.save([.insert(Self.key("milk"), attributes: [Self.name("title"): Self.text("milk"), Self.name("rank"): .value(.integer(1))]),
                             .insert(Self.key("bread"), attributes: [Self.name("title"): Self.text("bread")])], on: a)
        try await waitUntil("beta to import alpha's first transaction") { try await Self.records(b).count == 2 }
        #expect(heard.withLock { $0.first?.inserted.map(\.id).sorted() } == ["bread", "milk"])

        try await pair.part()
        try await Self.save([.update(Self.key("milk"), attributes: [Self.name("title"): Self.text("oat milk")])], on: a)
        try await Self.save([.delete(Self.key("bread"))], on: a)
        try await Self.save([.update(Self.key("milk"), attributes: [Self.name("rank"): .value(.integer(5))]),
                             .update(Self.key("bread"), attributes: [Self.name("title"): Self.text("rye bread")])], on: b)
        try await pair.rejoin()

        let expected = [Self.key("milk"): [Self.name("title"): Self.text("oat milk"), Self.name("rank"): .value(.integer(5))]]
        try await waitUntil("both to hold the merged records") {
            let (onA, onB) = (try await Self.records(a), try await Self.records(b))
            return onA == expected && onB == expected
        }
        // Beta heard of alpha's two transactions: milk renamed, bread deleted over its edit.
        try await waitUntil("beta's subscriber to hear the delete") { heard.withLock { $0.contains { !$0.deleted.isEmpty } } }
        let notices = heard.withLock { $0 }
        #expect(notices.flatMap(\.deleted).map(\.id) == ["bread"])
        #expect(notices.flatMap(\.conflicts).map(\.kind) == ["deleted"] && notices.flatMap(\.conflicts).first?.id == "bread")
        await watcher.close()
    }

    @Test func aTransactionThatCannotBeMadeIsRefusedWhole() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try await Self.save([.insert(Self.key("one"), attributes: [Self.name("n"): .value(.integer(1))])], on: a)
        // The second change updates a record that is not there: nothing of the transaction is saved.
        await #expect { try await Self.save([.insert(Self.key("two"), attributes: [:]), .update(Self.key("none"), attributes: [:])], on: a) } throws: {
            ($0 as? RPCError)?.code == .invalidRecord
        }
        try await a.withClient { client in
            let bad = RecordsSaveParams(container: Self.container, store: "../up", changes: [RecordChangeParams(op: "delete", entity: "Task", id: "one")])
            await #expect { let _: RecordsSaveResult = try await client.connection.call(ControlMethod.recordsSave.rawValue, params: bad) } throws: {
                ($0 as? RPCError)?.code == .invalidRecord
            }
            let big = [RecordChange.insert(Self.key("big"), attributes: [Self.name("blob"): .value(.data([UInt8](repeating: 7, count: 2 << 20)))])]
            await #expect { try await RecordStore(client: client, container: Self.container, name: "todos").save(big) } throws: {
                ($0 as? RPCError)?.code == .recordLimit
            }
        }
        #expect(try await Self.records(a).keys.map(\.id.rawValue) == ["one"])
        let logs = try FileManager.default.subpathsOfDirectory(atPath: a.path("Records/todos")).filter { $0.hasSuffix(".ubiqlog") }
        #expect(logs.count == 1)
    }

    @Test func damagedAndForgedLogsAreLeftOutAndReportedWhileTheRestImport() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        let (a, b) = (pair.alpha, pair.beta)
        try await pair.start()
        try await Self.save([.insert(Self.key("milk"), attributes: [Self.name("title"): Self.text("milk")])], on: a)
        let alpha = try await a.status().device.id
        let good = try FileManager.default.subpathsOfDirectory(atPath: a.path("Records/todos")).first { $0.hasSuffix(".ubiqlog") }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: a.path("Records/todos/" + (good ?? ""))))
        // A device's log cut short, and alpha's log copied into another device's folder, as a
        // buggy or hostile device of the account could write them.
        let cut = "Records/todos/TRUNCATED/00000000000000000001.ubiqlog", forged = "Records/todos/FORGED/00000000000000000001.ubiqlog"
        for (path, contents) in [(cut, bytes.prefix(bytes.count / 2)), (forged, bytes)] {
            try FileManager.default.createDirectory(atPath: a.path((path as NSString).deletingLastPathComponent), withIntermediateDirectories: true)
            try Data(contents).write(to: URL(fileURLWithPath: a.path(path)))
        }
        try await Self.save([.insert(Self.key("bread"), attributes: [Self.name("title"): Self.text("bread")])], on: a)

        try await waitUntil("beta to import alpha's logs and refuse the other two") {
            let refused = try await b.status().containers.first?.recordStores?.first?.refused.map(\.path) ?? []
            return try await Self.records(b).count == 2 && refused.count == 2
        }
        let store = try #require(try await b.status().containers.first?.recordStores?.first)
        #expect(store.name == "todos" && store.transactions == 2)
        let reasons = Dictionary(uniqueKeysWithValues: store.refused.map { ($0.path, $0.reason) })
        #expect(reasons[cut]?.contains("truncated or damaged") == true, "\(reasons)")
        #expect(reasons[forged]?.contains("transaction \(alpha):1") == true, "\(reasons)")
        let text = try await AgentProcess.cli(["status", "--socket", b.socket])
        #expect(text.contains("record store todos left out \(forged)"), "\(text)")
    }
}
