import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// The iCloud-shaped client library against real agents: the key-value store with typed
/// values and change streams, the container URL, the identity token and its changes, and
/// file versions on a real conflict.
@Suite(.serialized) struct ClientLibraryTests {
    // MARK: key-value store

    @Test func everyTypedSetterReadsBackOnTheOtherAgent() async throws {
        let pair = try await KeyValuePair()
        defer { pair.stop() }
        try await pair.start()
        let alpha = try await UbiquitousKeyValueStore.open(KeyValuePair.store, socketPath: pair.alpha.socket)
        let beta = try await UbiquitousKeyValueStore.open(KeyValuePair.store, socketPath: pair.beta.socket)
        let date = Date(timeIntervalSince1970: 1_795_341_600.25)
        let bytes = Data((0...255).map { UInt8($0) })
        try await alpha.set("Grüße ✓", forKey: "string")
        try await alpha.set(Int64.min, forKey: "int64")
        try await alpha.set(42, forKey: "int")
        try await alpha.set(2.5, forKey: "double")
        try await alpha.set(true, forKey: "bool")
        try await alpha.set(bytes, forKey: "data")
        try await alpha.set(date, forKey: "date")
        try await alpha.set([.integer(1), .string("two")], forKey: "array")
        try await alpha.set(["inner": .array([.bool(false)])], forKey: "dictionary")
        try await alpha.set(.double(-0.5), forKey: "object")
        try await alpha.set(["multi.a": .integer(1), "multi.b": .integer(2)])
        try await alpha.set("gone soon", forKey: "removed")
        try await alpha.removeObject(forKey: "removed")
        #expect(try await alpha.synchronize())

        #expect(try await beta.string(forKey: "string") == "Grüße ✓")
        #expect(try await beta.longLong(forKey: "int64") == Int64.min)
        #expect(try await beta.longLong(forKey: "int") == 42)
        #expect(try await beta.double(forKey: "double") == 2.5)
        #expect(try await beta.bool(forKey: "bool"))
        #expect(try await beta.data(forKey: "data") == bytes)
        #expect(try await beta.date(forKey: "date") == date)
        #expect(try await beta.array(forKey: "array") == [.integer(1), .string("two")])
        #expect(try await beta.dictionary(forKey: "dictionary") == ["inner": .array([.bool(false)])])
        #expect(try await beta.object(forKey: "object") == .double(-0.5))
        // Absent keys and other types answer as iCloud does.
        #expect(try await beta.object(forKey: "removed") == nil)
        #expect(try await beta.longLong(forKey: "missing") == 0)
        #expect(try await beta.double(forKey: "missing") == 0)
        #expect(try await beta.bool(forKey: "missing") == false)
        #expect(try await beta.string(forKey: "int") == nil)
        #expect(try await beta.longLong(forKey: "double") == 2)
        #expect(try await beta.double(forKey: "int") == 42)

        let everything = try await beta.dictionaryRepresentation()
        let onAlpha = try await alpha.dictionaryRepresentation()
        #expect(everything == onAlpha)
        #expect(everything.keys.sorted() == [
            "array", "bool", "data", "date", "dictionary", "double", "int", "int64", "multi.a", "multi.b", "object", "string",
        ])
        await #expect { try await alpha.set(String(repeating: "x", count: 10), forKey: String(repeating: "k", count: 65)) } throws: {
            ($0 as? RPCError)?.code == .keyTooLong
        }
        await alpha.close()
        await beta.close()
    }

    @Test func externalChangesAreTypedRemoteChangesAndConflicts() async throws {
        // Beta's clock runs a minute ahead, so its write wins the conflict.
        let pair = try await KeyValuePair(betaEnvironment: ["UBIQ_TEST_CLOCK_OFFSET_SECONDS": "60"])
        defer { pair.stop() }
        try await pair.start()
        let alpha = try await UbiquitousKeyValueStore.open(KeyValuePair.store, socketPath: pair.alpha.socket)
        let beta = try await UbiquitousKeyValueStore.open(KeyValuePair.store, socketPath: pair.beta.socket)
        let onAlpha = ChangeLog(try await alpha.externalChanges())
        let onBeta = ChangeLog(try await beta.externalChanges())

        try await alpha.set(1, forKey: "level")
        let first = try await onBeta.waitFor("the first change on beta") { $0.keys == ["level"] }
        #expect(first.reason == .initialSyncChange && first.store == KeyValuePair.store)
        try await alpha.set(["level": .integer(2), "name": .string("Ada")])
        let second = try await onBeta.waitFor("a remote change on beta") { $0.reason == .remoteChange }
        #expect(second.keys == ["level", "name"] && second.conflicts.isEmpty)
        #expect(try await beta.longLong(forKey: "level") == 2)

        try await pair.part()
        try await alpha.set(13, forKey: "level")
        try await beta.set(5, forKey: "level")
        try await pair.rejoin()
        for log in [onAlpha, onBeta] {
            let change = try await log.waitFor("a conflict") { $0.reason == .conflict }
            #expect(change.keys == ["level"])
            let conflict = try #require(change.conflicts.first)
            #expect(conflict.key == "level" && conflict.winner == .integer(5) && conflict.loser == .integer(13))
        }
        #expect(onAlpha.error == nil && onBeta.error == nil)
        await alpha.close()
        await beta.close()

        // The stream ends with connectionClosed when the agent goes away.
        pair.alpha.stop()
        try await waitUntil("alpha's change stream to end") { onAlpha.finished }
        #expect((onAlpha.error as? UbiqClientError)?.code == .connectionClosed)
        onBeta.cancel()
    }

    // MARK: container URL and identity

    @Test func containerURLForASyncedAndAnUnknownContainer() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let agent = cluster.agents[0]
        try await cluster.start()
        let ubiquity = Ubiquity(socketPath: agent.socket)
        let url = try #require(try await ubiquity.url(forUbiquityContainerIdentifier: agent.container))
        #expect(url.path(percentEncoded: false).trimmingSuffix("/") == agent.root)
        #expect(url.hasDirectoryPath)
        #expect(url.appending(path: "Documents").path(percentEncoded: false).hasSuffix("/container/Documents"))
        #expect(try await ubiquity.url(forUbiquityContainerIdentifier: "TEAMID.com.example.unknown") == nil)

        let raw = try await agent.withClient { try await $0.containerURL(try ContainerID("TEAMID.com.example.unknown")) }
        #expect(raw.url == nil && !raw.available)
        let synced = try await agent.withClient { try await $0.containerURL(agent.container) }
        #expect(synced == ContainerURLResult(container: agent.container, url: agent.root, available: true))
        await #expect(throws: (any Error).self) { try await ubiquity.url(forUbiquityContainerIdentifier: "not an identifier") }
    }

    @Test func theIdentityTokenIsTheAccountsAndChangesWithIt() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let agent = cluster.agents[0]
        try await cluster.start()
        let ubiquity = Ubiquity(socketPath: agent.socket)
        let token = try #require(try await ubiquity.ubiquityIdentityToken())
        let shown = try await Self.accountShowToken(agent)
        #expect(token == shown)

        let tokens = TokenLog(ubiquity.identityChanges(retryDelay: .milliseconds(20), maximumRetryDelay: .milliseconds(200)))
        try await waitUntil("the current token") { tokens.values == [token] }
        agent.stop()
        try await waitUntil("nil while the agent is down") { tokens.values == [token, nil] }
        await #expect(throws: UbiqClientError.self) { try await ubiquity.ubiquityIdentityToken() }

        try await AgentProcess.cli(["account", "leave", "--state", agent.state])
        try await agent.createAccount()
        let newToken = try await Self.accountShowToken(agent)
        #expect(newToken != token)
        try await agent.startAndWait()
        try await waitUntil("the new account's token") { tokens.values == [token, nil, newToken] }
        #expect(try await ubiquity.ubiquityIdentityToken() == newToken)
        tokens.cancel()
    }

    private static func accountShowToken(_ agent: AgentProcess) async throws -> String {
        let shown = try JSONValue(parsing: try await AgentProcess.cli(["account", "show", "--json", "--state", agent.state]))
        return try #require(shown["identityToken"]?.stringValue)
    }

    // MARK: file versions

    /// `otherVersions` lists a document's past versions from the history beside its
    /// conflicts, and `replaceItem()` on one restores it on every device.
    @Test func aPastFileVersionIsListedAndReplacesTheCurrentOne() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/essay.txt"
        try a.write(path, "the good draft")
        try await waitUntil("the draft on beta") { b.read(path) == "the good draft" }
        try a.write(path, "a bad save")
        try await waitUntil("the bad save on beta") { b.read(path) == "a bad save" }
        try await b.withClient { client in
            let others = try await FileVersion.otherVersions(of: path, in: b.container, client: client)
            let past = try #require(others.first)
            #expect(others.count == 1 && past.isPast && past.isResolved && !past.isCurrent && past.size == 14 && past.keptDate != nil)
            let current = try await past.replaceItem()
            #expect(current.isCurrent && current.size == 14)
        }
        try await waitUntil("the good draft back on alpha") { a.read(path) == "the good draft" }
    }

    /// One real conflict per document: alpha and beta each edit three documents while beta
    /// is stopped; beta's later edits win, alpha's are kept as conflict versions.
    @Test func fileVersionsSettleARealConflict() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let documents = ["Documents/doc.txt", "Documents/notes.txt", "Documents/cli.txt"]
        for path in documents { try a.write(path, "version zero") }
        try await waitUntil("the first versions on beta") { documents.allSatisfy { b.read($0) == "version zero" } }
        let originals = try await documents.asyncMap { try await a.versions($0).current.id }

        b.stop()
        for path in documents { try a.write(path, "edited on alpha: \(path)") }
        try await waitUntil("alpha to record its edits") {
            try await zip(documents, originals).asyncAllSatisfy { path, original in try await a.versions(path).current.id != original }
        }
        for path in documents { try b.write(path, "edited on beta, later: \(path)") }
        try await b.startAndWait()
        try await waitUntil("both agents to agree on the conflicts") {
            try await documents.asyncAllSatisfy { path in
                let (va, vb) = (try await a.versions(path), try await b.versions(path))
                return va.conflicts.count == 1 && va.conflicts.map(\.id) == vb.conflicts.map(\.id) && va.current.id == vb.current.id
            }
        }
        let alphaDevice = try await a.status().device.id

        try await b.withClient { client in
            let container = b.container
            // The versions of doc.txt, as beta lists them.
            let current = try await FileVersion.currentVersion(of: "Documents/doc.txt", in: container, client: client)
            #expect(current.isCurrent && current.isResolved)
            let conflicts = try await FileVersion.unresolvedConflictVersions(of: "Documents/doc.txt", in: container, client: client)
            let conflict = try #require(conflicts.first)
            #expect(conflicts.count == 1 && !conflict.isResolved && !conflict.isCurrent)
            #expect(conflict.modifiedBy == alphaDevice && conflict.size == Int64("edited on alpha: Documents/doc.txt".utf8.count))
            #expect(conflict.modificationDate < current.modificationDate)

            // Keep both: the conflict version under a new name reaches alpha too.
            let copy = try await conflict.save(as: "Documents/Saved/doc (alpha).txt")
            #expect(copy.path == "Documents/Saved/doc (alpha).txt" && copy.size == conflict.size)
            #expect(b.read("Documents/Saved/doc (alpha).txt") == "edited on alpha: Documents/doc.txt")
            // The folder the save created is recorded with the file, not left to the watcher.
            let listed = try await client.items(container: container, path: "Documents")
            #expect(listed.contains { $0.path == "Documents/Saved" && $0.kind == .directory })
            try await waitUntil("the saved copy on alpha") { a.read("Documents/Saved/doc (alpha).txt") == "edited on alpha: Documents/doc.txt" }
            // The conflict stays until resolved; saving over an existing path is refused.
            #expect(try await FileVersion.unresolvedConflictVersions(of: "Documents/doc.txt", in: container, client: client).count == 1)
            await #expect { try await conflict.save(as: "Documents/notes.txt") } throws: { ($0 as? RPCError)?.code == .alreadyExists }
            #expect(b.read("Documents/notes.txt") == "edited on beta, later: Documents/notes.txt")
            await #expect { try await client.saveVersion(container: container, path: "Documents/doc.txt", version: .version("NOSUCH-1"), to: "x.txt") } throws: {
                ($0 as? RPCError)?.code == .conflictNotFound
            }
            await #expect { try await conflict.save(as: ".ubiq/escape.txt") } throws: { ($0 as? RPCError)?.code == .invalidPath }

            // Replace: the conflict version becomes current on both agents.
            let replaced = try await conflict.replaceItem()
            #expect(replaced.isCurrent && replaced.id != conflict.id && replaced.size == conflict.size)
            // Mark resolved: notes.txt keeps beta's content.
            let notes = try #require(try await FileVersion.unresolvedConflictVersions(of: "Documents/notes.txt", in: container, client: client).first)
            try await notes.markResolved()
        }
        try await waitUntil("the replacement and the resolution on both agents") {
            try await [a, b].asyncAllSatisfy { agent in
                let (doc, notes) = (try await agent.versions("Documents/doc.txt"), try await agent.versions("Documents/notes.txt"))
                return doc.conflicts.isEmpty && notes.conflicts.isEmpty
                    && agent.read("Documents/doc.txt") == "edited on alpha: Documents/doc.txt"
                    && agent.read("Documents/notes.txt") == "edited on beta, later: Documents/notes.txt"
            }
        }

        // The command line keeps both: alpha's version as a new document, beta's at the path.
        let cliConflict = try await a.versions("Documents/cli.txt").conflicts[0].id
        let output = try await AgentProcess.cli(["--socket", a.socket, "resolve", "\(a.container)", "Documents/cli.txt", "--keep-both", "Documents/cli (alpha).txt"])
        #expect(output.contains("Saved version \(cliConflict)"))
        try await waitUntil("both documents on both agents, the conflict gone") {
            try await [a, b].asyncAllSatisfy { agent in
                let versions = try await agent.versions("Documents/cli.txt")
                return versions.conflicts.isEmpty
                    && agent.read("Documents/cli (alpha).txt") == "edited on alpha: Documents/cli.txt"
                    && agent.read("Documents/cli.txt") == "edited on beta, later: Documents/cli.txt"
            }
        }
        await #expect(throws: (any Error).self) {
            try await AgentProcess.cli(["--socket", a.socket, "resolve", "\(a.container)", "Documents/cli.txt", "--keep-both", "Documents/other.txt"])
        }
    }
}

/// Records what a change stream yields, in the background, so a test can wait for a change.
private final class ChangeLog: Sendable {
    private final class Received: Sendable {
        let changes = Mutex<[UbiquitousKeyValueStore.ExternalChange]>([])
        /// Nil while the stream runs; then nil inside when it finished, else its error.
        let end = Mutex<(any Error)??>(nil)
    }

    private let received: Received
    private let task: Task<Void, Never>

    init(_ stream: AsyncThrowingStream<UbiquitousKeyValueStore.ExternalChange, any Error>) {
        let received = Received()
        self.received = received
        task = Task {
            do {
                for try await change in stream { received.changes.withLock { $0.append(change) } }
                received.end.withLock { $0 = .some(nil) }
            } catch {
                received.end.withLock { $0 = .some(error) }
            }
        }
    }

    var finished: Bool { received.end.withLock { $0 != nil } }
    var error: (any Error)? { received.end.withLock { $0 ?? nil } }

    func waitFor(_ what: String, _ match: @escaping @Sendable (UbiquitousKeyValueStore.ExternalChange) -> Bool) async throws
        -> UbiquitousKeyValueStore.ExternalChange {
        var found: UbiquitousKeyValueStore.ExternalChange?
        try await waitUntil(what, timeout: .seconds(30), every: .milliseconds(5)) {
            found = received.changes.withLock { $0.first(where: match) }
            return found != nil
        }
        return found!
    }

    func cancel() { task.cancel() }
}

/// Records the identity tokens a stream yields.
/// Everything a stream yields, kept for a test to wait on.
final class StreamLog<Element: Sendable>: Sendable {
    private final class Received: Sendable {
        let elements = Mutex<[Element]>([])
    }

    private let received: Received
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let received = Received()
        self.received = received
        task = Task {
            for await element in stream { received.elements.withLock { $0.append(element) } }
        }
    }

    var values: [Element] { received.elements.withLock { $0 } }

    func cancel() { task.cancel() }
}

typealias TokenLog = StreamLog<String?>

private extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }

    func asyncAllSatisfy(_ predicate: (Element) async throws -> Bool) async rethrows -> Bool {
        for element in self where !(try await predicate(element)) { return false }
        return true
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
