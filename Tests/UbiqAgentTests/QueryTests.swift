import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// Metadata queries against real agents: a query on beta gathers, then follows what alpha
/// does to its documents.
@Suite(.serialized) struct QueryTests {
    @Test func aQueryGathersThenUpdatesLive() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/existing.txt", "was there first")
        try a.write("Documents/Sub/nested.md", "# nested")
        try a.write("top-level.json", "{}")
        try await waitForConvergence([a, b], "the first files on beta") {
            $0["Documents/existing.txt"] != nil && $0["Documents/Sub/nested.md"] != nil && $0["top-level.json"] != nil
        }

        let query = MetadataQuery(container: b.container)
        let gathered = try await query.start(socketPath: b.socket)
        #expect(gathered.map(\.path) == ["Documents/existing.txt", "Documents/Sub/nested.md"])
        let existing = try #require(gathered.first)
        #expect(existing.name == "existing.txt" && existing.size == 15 && existing.kind == .file)
        #expect(existing.downloaded && existing.uploaded == true && existing.downloadProgress == nil && existing.conflicts == 0)
        let updates = Collected(query.updates)

        try a.write("Documents/new.txt", "new")
        try await waitUntil("beta's query to add new.txt", timeout: .seconds(60)) {
            updates.all.contains { $0.added.map(\.path) == ["Documents/new.txt"] }
        }
        #expect(await query.results.map(\.path) == ["Documents/existing.txt", "Documents/Sub/nested.md", "Documents/new.txt"])
        #expect(await query.results.last?.size == 3)

        updates.reset()
        try a.write("Documents/new.txt", "new, and longer")
        try await waitUntil("beta's query to report the edit") {
            updates.all.contains { $0.changed.contains { $0.path == "Documents/new.txt" && $0.size == 15 } }
        }
        #expect(updates.all.allSatisfy { $0.added.isEmpty && $0.removed.isEmpty })

        updates.reset()
        try FileManager.default.moveItem(atPath: a.path("Documents/new.txt"), toPath: a.path("Documents/renamed.txt"))
        try await waitUntil("beta's query to report the rename") {
            let all = updates.all
            return all.contains { $0.removed == ["Documents/new.txt"] } && all.contains { $0.added.map(\.path) == ["Documents/renamed.txt"] }
        }
        #expect(await query.results.map(\.name) == ["existing.txt", "nested.md", "renamed.txt"])

        updates.reset()
        try FileManager.default.removeItem(atPath: a.path("Documents/existing.txt"))
        try await waitUntil("beta's query to report the deletion") {
            updates.all.contains { $0.removed == ["Documents/existing.txt"] }
        }
        let final = await query.results
        #expect(final.map(\.path) == ["Documents/Sub/nested.md", "Documents/renamed.txt"])
        #expect(updates.all.last?.results == final)

        await query.stop()
        try await waitUntil("the updates to finish") { updates.finished }
    }

    /// Hundreds of files arriving together come in a few batched updates, not one line each.
    @Test func manyChangesArriveInFewUpdates() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let query = MetadataQuery(container: b.container, sort: .name)
        #expect(try await query.start(socketPath: b.socket).isEmpty)
        let updates = Collected(query.updates)

        let count = 500
        let clock = ContinuousClock()
        let started = clock.now
        for i in 0..<count { try a.write("Documents/batch/file\(i).txt", "file number \(i)") }
        // The results and the collected updates are read separately: wait for both.
        try await waitUntil("beta's query to hold every file", timeout: .seconds(120)) {
            await query.results.count == count && updates.all.reduce(0) { $0 + $1.added.count } == count
        }
        let seconds = Double((clock.now - started).components.seconds) + Double((clock.now - started).components.attoseconds) / 1e18
        let names = await query.results.map(\.name)
        #expect(names.first == "file0.txt" && names[2] == "file2.txt" && names.last == "file499.txt")
        #expect(updates.all.reduce(0) { $0 + $1.added.count } == count)
        // The agent sends at most four updates a second.
        #expect(Double(updates.all.count) <= seconds * 4 + 2, "\(updates.all.count) updates in \(seconds) s")
        #expect(updates.all.count < count / 4)
        print("QueryTests: \(count) files arrived in \(updates.all.count) updates over \(seconds) s")
        await query.stop()
    }

    @Test func scopeGlobAndSortFilterAndOrderTheResults() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/b.md", "bb")
        try a.write("Documents/a.txt", "a")
        try a.write("Documents/C.MD", "ccc")
        try a.write("Library/prefs.md", "data scope")
        try FileManager.default.createDirectory(atPath: a.path("Documents/folder.md"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: a.path("Documents/link.md"), withDestinationPath: "b.md")
        try await waitForConvergence([a, b], "the files on beta") { $0["Documents/link.md"] != nil && $0["Library/prefs.md"] != nil }

        func paths(_ params: QueryStartParams) async throws -> [String] {
            try await b.withClient { client in
                let result: QueryStartResult = try await client.connection.call(ControlMethod.queryStart.rawValue, params: params)
                return result.items.map(\.path)
            }
        }
        let container = b.container
        #expect(try await paths(.init(container: container))
            == ["Documents/a.txt", "Documents/b.md", "Documents/C.MD", "Documents/link.md"])
        #expect(try await paths(.init(container: container, scope: .data)) == ["Library/prefs.md"])
        #expect(try await paths(.init(container: container, scope: .both, glob: "*.md"))
            == ["Documents/b.md", "Documents/link.md", "Library/prefs.md"])
        #expect(try await paths(.init(container: container, glob: "*.md", ignoreCase: true))
            == ["Documents/b.md", "Documents/C.MD", "Documents/link.md"])
        #expect(try await paths(.init(container: container, glob: "?.*", sort: .size, descending: true))
            == ["Documents/C.MD", "Documents/b.md", "Documents/a.txt"])

        // A live query with a glob hears only of matching names; marker.md, written last, shows
        // that a.txt's change has been seen and passed over.
        let connection = try await UbiqConnection.connect(socketPath: b.socket)
        defer { Task { await connection.close() } }
        let notices = Collected(connection.notifications)
        let started: QueryStartResult = try await connection.call(
            ControlMethod.queryStart.rawValue, params: QueryStartParams(container: container, glob: "*.md"))
        try a.write("Documents/a.txt", "a, edited")
        try await waitUntil("the edit on beta") { try await b.withClient { try await $0.itemStatus(container: container, path: "Documents/a.txt") }.size == 9 }
        try a.write("Documents/marker.md", "m")
        try await waitUntil("the query to add marker.md") {
            notices.all.compactMap { try? $0.params?.decode(QueryUpdateNotice.self) }.contains { $0.added.map(\.path) == ["Documents/marker.md"] }
        }
        let seen = notices.all.compactMap { try? $0.params?.decode(QueryUpdateNotice.self) }
        #expect(notices.all.allSatisfy { $0.method == "query.update" })
        #expect(seen.allSatisfy { $0.query == started.query })
        #expect(!seen.contains { ($0.added + $0.changed).contains { $0.path == "Documents/a.txt" } })
    }

    @Test func stopEndsUpdatesAndItemStatusReportsOneItem() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let container = b.container

        let connection = try await UbiqConnection.connect(socketPath: b.socket)
        defer { Task { await connection.close() } }
        let notices = Collected(connection.notifications)
        let stopped: QueryStartResult = try await connection.call(
            ControlMethod.queryStart.rawValue, params: QueryStartParams(container: container))
        let running: QueryStartResult = try await connection.call(
            ControlMethod.queryStart.rawValue, params: QueryStartParams(container: container, scope: .both))
        #expect(stopped.query != running.query)
        #expect(stopped.items.isEmpty && running.items.isEmpty)
        let answer: QueryStopParams = try await connection.call(ControlMethod.queryStop.rawValue, params: QueryStopParams(query: stopped.query))
        #expect(answer.query == stopped.query)

        // Stopping again, or another connection's query, is refused.
        #expect(await errorCode {
            let _: QueryStopParams = try await connection.call(ControlMethod.queryStop.rawValue, params: QueryStopParams(query: stopped.query))
        } == .queryNotFound)
        #expect(await errorCode {
            try await b.withClient { other in
                let _: QueryStopParams = try await other.connection.call(
                    ControlMethod.queryStop.rawValue, params: QueryStopParams(query: running.query))
            }
        } == .queryNotFound)

        try a.write("Documents/after-stop.txt", "only the running query hears of this")
        try a.write("Documents/second.txt", "and this")
        try await waitUntil("the running query to add both files") {
            Set(notices.all.compactMap { try? $0.params?.decode(QueryUpdateNotice.self) }.flatMap(\.added).map(\.path))
                == ["Documents/after-stop.txt", "Documents/second.txt"]
        }
        let seen = notices.all.compactMap { try? $0.params?.decode(QueryUpdateNotice.self) }
        #expect(seen.allSatisfy { $0.query == running.query })

        let status = try await b.withClient { try await $0.itemStatus(container: container, path: "Documents/second.txt") }
        #expect(status.path == "Documents/second.txt" && status.name == "second.txt" && status.size == 8 && status.kind == .file)
        #expect(status.downloaded && status.conflicts == 0)
        let alphaID = try await a.withClient { try await $0.identity() }.deviceID
        #expect(status.modifiedBy == alphaID)
        let folder = try await b.withClient { try await $0.itemStatus(container: container, path: "Documents") }
        #expect(folder.kind == .directory)

        try FileManager.default.removeItem(atPath: a.path("Documents/second.txt"))
        try await waitUntil("the deletion on beta") { !FileManager.default.fileExists(atPath: b.path("Documents/second.txt")) }
        try await waitUntil("item.status to report the deletion") {
            do {
                _ = try await b.withClient { try await $0.itemStatus(container: container, path: "Documents/second.txt") }
                return false
            } catch let error as RPCError {
                return error.code == .notFound
            }
        }
        #expect(await errorCode { _ = try await b.withClient { try await $0.itemStatus(container: container, path: "Documents/never.txt") } }
            == .notFound)
        #expect(await errorCode { _ = try await b.withClient { try await $0.itemStatus(container: container, path: "../escape") } }
            == .invalidPath)
        let unknownContainer = try ContainerID("TEAMID.com.example.other")
        #expect(await errorCode { _ = try await b.withClient { try await $0.itemStatus(container: unknownContainer, path: "Documents/x") } }
            == .containerNotFound)
        #expect(await errorCode {
            try await b.withClient { client in
                let _: QueryStartResult = try await client.connection.call(
                    ControlMethod.queryStart.rawValue, params: QueryStartParams(container: container, glob: "bad\\"))
            }
        } == .invalidParams)
    }

    /// The code of the `RPCError` `body` throws; nil when it throws none.
    private func errorCode(_ body: () async throws -> Void) async -> RPCError.Code? {
        do {
            try await body()
        } catch let error as RPCError {
            return error.code
        } catch {}
        return nil
    }

    @Test func theCLIRunsAQuery() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try a.write("Documents/notes/one.txt", "1")
        try a.write("Documents/two.md", "22")
        try await cluster.start()
        try await waitUntil("the files in alpha's index") {
            (try? await a.withClient { try await $0.itemStatus(container: a.container, path: "Documents/two.md") }) != nil
        }
        let table = try await AgentProcess.cli(["query", "\(a.container)", "--socket", a.socket, "--sort", "size", "--descending"])
        let lines = table.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].contains("Documents/two.md") && lines[2].contains("Documents/notes/one.txt"))
        #expect(lines[3] == "2 items.")
        let json = try await AgentProcess.cli(["query", "\(a.container)", "--socket", a.socket, "--name", "*.TXT", "-i", "--json"])
        let result = try JSONValue(parsing: json).decode(QueryStartResult.self)
        #expect(result.items.map(\.path) == ["Documents/notes/one.txt"])
        let none = try await AgentProcess.cli(["query", "\(a.container)", "--socket", a.socket, "--scope", "data"])
        #expect(none.contains("No items match."))
    }
}

/// What a stream has yielded so far, for tests to wait on.
final class Collected<Element: Sendable>: Sendable {
    private let state = Mutex<(items: [Element], finished: Bool)>(([], false))

    init(_ stream: AsyncStream<Element>) {
        Task {
            for await element in stream { self.state.withLock { $0.items.append(element) } }
            self.state.withLock { $0.finished = true }
        }
    }

    var all: [Element] { state.withLock { $0.items } }
    var finished: Bool { state.withLock { $0.finished } }
    func reset() { state.withLock { $0.items = [] } }
}
