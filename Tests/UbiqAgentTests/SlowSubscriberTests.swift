import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// A subscriber that reads its notifications too slowly is told it fell behind, and its
/// subscription ends, rather than growing the agent's memory or losing notices unsaid.
@Suite(.serialized) struct SlowSubscriberTests {
    /// Makes `count` small files in folders of 500 beside the container, then moves them in
    /// at once as `Documents/tree`: one burst of changes.
    static func moveTreeIn(_ count: Int, to agent: AgentProcess, via directory: TempDirectory) throws {
        let tree = directory.appending("tree")
        for index in 0..<count {
            let folder = tree + "/d\(index / 500)"
            if index % 500 == 0 { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try Data("file \(index)".utf8).write(to: URL(fileURLWithPath: folder + "/f\(index).txt"))
        }
        try FileManager.default.moveItem(atPath: tree, toPath: agent.path("Documents/tree"))
    }

    /// Both an `events.subscribe` and a presenter on one slow connection are told; the
    /// presenter then has ended, so unregistering it finds nothing.
    @Test func aSubscriberThatFallsBehindIsToldSo() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let slow = try await RawLineClient(socketPath: a.socket)
        try await slow.send(line: #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        _ = try await slow.readJSON()
        try await slow.send(line: #"{"jsonrpc":"2.0","id":3,"method":"presenter.register","params":{"container":"\#(a.container)","path":"Documents"}}"#)
        let presenter = try #require(try await slow.readJSON()?["result"]?["presenter"]?.integerValue)

        // More new files at once than a subscriber may fall behind by: a tree moved in.
        let count = ContainerSyncBuffer.items + 2_000
        try Self.moveTreeIn(count, to: a, via: cluster.directory)
        // The agent answers others while the slow client reads nothing.
        try await waitUntil("alpha to index the tree", timeout: .seconds(120)) {
            try await a.status().containers.first?.items ?? 0 > count
        }

        var events = 0
        var notices: [JSONValue] = []
        while notices.count < 2, let line = try await slow.readJSON() {
            if line["method"] == "events.item" { events += 1 }
            if line["method"] == "subscription.fellBehind", let params = line["params"] { notices.append(params) }
        }
        #expect(notices.contains { $0["method"] == "events.item" })
        #expect(notices.contains { $0["method"] == "presenter" && $0["presenter"]?.integerValue == presenter })
        #expect(events >= ContainerSyncBuffer.items && events < count, "\(events) events before the notice")
        // The same connection still answers requests; the ended presenter is gone from it.
        try await slow.send(line: #"{"jsonrpc":"2.0","id":2,"method":"presenter.unregister","params":{"presenter":\#(presenter)}}"#)
        var answer: JSONValue?
        while answer == nil, let line = try await slow.readJSON() {
            if line["id"] == 2 { answer = line }
        }
        #expect(answer?["error"]?["code"] == -32004)
        await slow.close()
        #expect(a.isRunning)
    }
}

extension SlowSubscriberTests {
    /// A query whose agent side fell behind a burst (a tree of 10,192 files moved in at once)
    /// starts again by itself: its results hold every file, its updates add up to them, and
    /// it keeps following later changes.
    @Test func aQueryKeepsUpWithABurstLargerThanItsBuffer() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let query = MetadataQuery(container: a.container, sort: .name)
        _ = try await query.start(socketPath: a.socket)
        let updates = Collected(query.updates)

        let count = ContainerSyncBuffer.items + 2_000
        try Self.moveTreeIn(count, to: a, via: cluster.directory)
        func files(_ items: [QueryItem]) -> Int { items.filter { $0.name.hasSuffix(".txt") }.count }
        try await waitUntil("the query to hold every file", timeout: .seconds(120)) {
            await files(query.results) == count && updates.all.reduce(0) { $0 + files($1.added) } == count
        }
        try a.write("Documents/later.txt", "after the burst")
        try await waitUntil("the query to follow a later change") {
            updates.all.contains { $0.added.contains { $0.path == "Documents/later.txt" } }
        }
        await query.stop()
    }
}

extension SlowSubscriberTests {
    /// A presenter of `Documents` whose agent side fell behind the same burst registers again
    /// by itself, says that anything in its folder may have changed, and hears later changes.
    /// The scan records a moved-in tree a batch at a time, which a presenter's relay keeps up
    /// with; one batch larger than the buffer makes the burst this test needs.
    @Test func aPresenterStartsAgainAfterABurstLargerThanItsBuffer() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        a.environment["UBIQ_TEST_SCAN_BATCH"] = "\(ContainerSyncBuffer.items * 2)"
        try await cluster.start()
        let client = try await UbiqAgentClient.connect(socketPath: a.socket)
        let heard = Collected(try await client.presentedItemEvents(container: a.container, path: "Documents"))

        try Self.moveTreeIn(ContainerSyncBuffer.items + 2_000, to: a, via: cluster.directory)
        try await waitUntil("the presenter to start again after the burst", timeout: .seconds(120)) {
            heard.all.contains(.didChange(path: "Documents", origin: "unknown"))
        }
        try a.write("Documents/later.txt", "after the burst")
        try await waitUntil("the presenter to hear a later change") {
            heard.all.contains(.didChange(path: "Documents/later.txt", origin: "local"))
        }
        #expect(!heard.finished)
        await client.close()
    }
}

/// How many item changes a subscriber may fall behind by (`ContainerSync.itemChangeBuffer`).
enum ContainerSyncBuffer {
    static let items = 8192
}
