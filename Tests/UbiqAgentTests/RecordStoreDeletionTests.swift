import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// Deleting a record store on one device of three: its logs and every device's local store
/// go, a subscriber hears its records go, and the store can be made anew from any device;
/// signing out and into another account keeps each account's local stores apart; a local
/// store lost or damaged is rebuilt from the logs.
@Suite(.serialized) struct RecordStoreDeletionTests {
    typealias Live = RecordStoreLiveTests

    /// The local SQLite files of the agent's record stores.
    static func localStores(_ agent: AgentProcess) -> [String] {
        let folder = agent.state + "/records"
        return ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".sqlite") }
    }

    static func logs(_ agent: AgentProcess) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: agent.path("Records/todos"))) ?? []).filter { $0.hasSuffix(".ubiqlog") }
    }

    @Test func aStoreDeletedOnOneDeviceGoesFromEveryDeviceAndCanBeMadeAnew() async throws {
        let cluster = try await LiveCluster(["alpha", "beta", "gamma"])
        defer { cluster.stopAll() }
        let (a, b, c) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        try await cluster.start()
        try await cluster.waitConnected()
        try await Live.save([.insert(Live.key("milk"), attributes: [Live.name("title"): Live.text("milk")])], on: a)
        try await Live.save([.insert(Live.key("bread"), attributes: [Live.name("title"): Live.text("bread")])], on: c)
        try await waitUntil("every agent to hold both records") {
            for agent in [a, b, c] where try await Live.records(agent).count != 2 { return false }
            return true
        }
        let watcher = try await UbiqAgentClient.connect(socketPath: c.socket)
        let heard = Mutex<[RecordsDidImportNotice]>([])
        let imports = try await RecordStore(client: watcher, container: Live.container, name: "todos").imports()
        let listening = Task { for await notice in imports { heard.withLock { $0.append(notice) } } }
        defer { listening.cancel() }

        let removed = try await AgentProcess.cli(["records", "rm-store", "--store", "todos", "--socket", b.socket])
        #expect(removed.contains("Deleted record store todos of \(Live.container) (2 change logs)"), "\(removed)")
        #expect(Self.logs(b).isEmpty && Self.localStores(b).isEmpty)
        try await waitUntil("alpha and gamma to remove the store's logs and their local stores") {
            for agent in [a, c] {
                let open = try await agent.status().containers.first?.recordStores ?? []
                if !Self.logs(agent).isEmpty || !Self.localStores(agent).isEmpty || !open.isEmpty { return false }
            }
            return true
        }
        try await waitUntil("gamma's subscriber to hear both records go") {
            Set(heard.withLock { $0.flatMap(\.deleted).map(\.id) }) == ["milk", "bread"]
        }
        for agent in [a, b, c] { #expect(try await Live.records(agent).isEmpty, "\(agent.name)") }

        // Made anew from gamma: every device holds only the new record.
        try await Live.save([.insert(Live.key("eggs"), attributes: [Live.name("title"): Live.text("eggs")])], on: c)
        let expected = [Live.key("eggs"): [Live.name("title"): Live.text("eggs")]]
        try await waitUntil("every agent to hold the new store's record") {
            for agent in [a, b, c] where try await Live.records(agent) != expected { return false }
            return true
        }
        await watcher.close()
    }

    @Test func aDeletionDoesNotTakeAStoreFromUnderAClientsCoordinatedWrite() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try await Live.save([.insert(Live.key("milk"), attributes: [Live.name("title"): Live.text("milk")])], on: a)
        let writer = try await UbiqAgentClient.connect(socketPath: a.socket)
        let lease: CoordinateAcquireResult = try await writer.connection.call(ControlMethod.coordinateAcquire.rawValue, params: CoordinateAcquireParams(
            container: Live.container, items: [CoordinationItem(path: "Records/todos", access: "write")]))
        // The agent waits 10 s for the lease, then says why it did not delete, and deletes nothing.
        await #expect { try await a.withClient { try await RecordStore(client: $0, container: Live.container, name: "todos").deleteStore() } } throws: {
            ($0 as? RPCError)?.code == .unavailable && ($0 as? RPCError)?.message.contains("coordinated write") == true
        }
        #expect(Self.logs(a).count == 1)
        #expect(try await Live.records(a).count == 1)
        let _: JSONValue = try await writer.connection.call(ControlMethod.coordinateRelease.rawValue, params: CoordinateReleaseParams(lease: lease.lease))
        #expect(try await a.withClient { try await RecordStore(client: $0, container: Live.container, name: "todos").deleteStore() } == 1)
        #expect(Self.logs(a).isEmpty)
        await writer.close()
    }

    @Test func aNewAccountOnTheDeviceNeverSeesTheLastOnesRecords() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try await Live.save([.insert(Live.key("old"), attributes: [Live.name("title"): Live.text("the first account's")])], on: a)
        let first = try #require(try await a.status().identityToken)
        _ = try await AgentProcess.cli(["account", "leave", "--socket", a.socket])
        _ = try await AgentProcess.cli(["account", "create", "--socket", a.socket])
        let second = try #require(try await a.status().identityToken)
        #expect(try await Live.records(a).isEmpty)
        try await Live.save([.insert(Live.key("new"), attributes: [Live.name("title"): Live.text("the second account's")])], on: a)
        #expect(try await Live.records(a).keys.map(\.id.rawValue) == ["new"])
        // Each account's local store in a folder of its own; the first one's kept as it was.
        let stores = Self.localStores(a).sorted()
        #expect(stores.count == 2 && Set(stores.map { String($0.prefix(16)) }) == [String(first.prefix(16)), String(second.prefix(16))], "\(stores)")
    }

    @Test func aLostOrDamagedLocalStoreIsRebuiltFromTheLogs() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        for n in 0..<5 { try await Live.save([.insert(Live.key("t\(n)"), attributes: [Live.name("n"): .value(.integer(Int64(n)))])], on: a) }
        try await Live.save([.delete(Live.key("t2")), .update(Live.key("t0"), attributes: [Live.name("n"): .value(.integer(10))])], on: a)
        var before = try await Live.records(a)
        let file = a.state + "/records/" + (try #require(Self.localStores(a).first))

        for damage in ["lost", "damaged"] {
            a.stop()
            if damage == "lost" {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
            } else {
                for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
                try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: file))
            }
            try await a.startAndWait()
            let after = try await Live.records(a)
            #expect(after == before, "\(damage): \(after.keys.map(\.id.rawValue).sorted())")
            // The next save follows on from the logs, never over one.
            let saved = try await a.withClient { try await RecordStore(client: $0, container: Live.container, name: "todos")
                .save([.update(Live.key("t1"), attributes: [Live.name("n"): .value(.integer(Int64(damage.count)))])]) }
            #expect(saved.transaction.hasSuffix(damage == "lost" ? ":7" : ":8"), "\(saved.transaction)")
            before = try await Live.records(a)
        }
        let aside = try FileManager.default.contentsOfDirectory(atPath: (file as NSString).deletingLastPathComponent).filter { $0.contains(".damaged-") }
        #expect(!aside.isEmpty, "the damaged file is kept aside")
    }
}
