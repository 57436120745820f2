import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// Signing out and in while the agent runs, as iCloud does: clients are told at once, the
/// account's folders go aside (or stay, bound to it), the agent stays up signed out across
/// restarts, and a new account never sees the old one's files.
@Suite(.serialized) struct SignOutTests {
    @Test func aRunningAgentSignsOutAndInAndTheNewAccountNeverSeesTheOldFiles() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let store = try KeyValueStoreID("TEAMID.com.example.settings")
        b.extraArguments = ["--kvstore", store.rawValue]
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/old.txt", "the first account's")
        try await waitUntil("alpha's file on beta") { b.read("Documents/old.txt") == "the first account's" }
        let firstToken = try #require(try await b.status().identityToken)

        let tokens = TokenLog(Ubiquity(socketPath: b.socket).identityChanges())
        try await waitUntil("beta's token") { tokens.values == [firstToken] }
        let watcher = try await UbiqAgentClient.connect(socketPath: b.socket)
        try await watcher.set(store: store, ["volume": .integer(3)])
        let notices = try await watcher.keyValueChanges(store: store)

        let output = try await AgentProcess.cli(["account", "leave", "--socket", b.socket])
        #expect(output.contains("Signed out"), "\(output)")
        try await waitUntil("the identity change told at once") { tokens.values == [firstToken, nil] }
        var iterator = notices.makeAsyncIterator()
        let notice = try #require(await iterator.next())
        #expect(notice.reason == "accountChange" && notice.keys == ["volume"])
        await watcher.close()
        let status = try await b.status()
        #expect(status.identityToken == nil && status.containers.isEmpty && status.peers.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: b.root))
        let aside = try FileManager.default.contentsOfDirectory(atPath: b.home).filter { $0.hasPrefix("container.signed-out-") }
        #expect(aside.count == 1)
        #expect(FileManager.default.contents(atPath: b.home + "/" + aside[0] + "/Documents/old.txt") == Data("the first account's".utf8))
        do {
            _ = try await b.withClient { try await $0.items(container: b.container) }
            Issue.record("a signed-out agent listed items")
        } catch let error as RPCError {
            #expect(error.code == .unavailable)
        }
        try await waitUntil("alpha to lose beta") { try await a.status().peers.allSatisfy { !$0.connected } }

        // Signed out stays signed out across a restart: no account is made by itself.
        b.stop()
        try await b.startAndWait()
        #expect(try await b.status().identityToken == nil)

        // A new account, without a restart: the first account's files never reach it.
        let created = try await AgentProcess.cli(["account", "create", "--socket", b.socket])
        #expect(created.contains("Created a new account"), "\(created)")
        let secondToken = try #require(try await b.status().identityToken)
        #expect(secondToken != firstToken)
        try a.write("Documents/later.txt", "still the first account's")
        try b.write("Documents/new.txt", "the second account's")
        try await waitUntil("beta to index its new file") {
            try await b.withClient { try await $0.items(container: b.container, path: "Documents") }.map(\.path) == ["Documents/new.txt"]
        }
        try await waitUntil("alpha to index its later file") {
            try await a.withClient { try await $0.items(container: a.container, path: "Documents") }.contains { $0.path == "Documents/later.txt" }
        }
        #expect(b.read("Documents/old.txt") == nil && b.read("Documents/later.txt") == nil && a.read("Documents/new.txt") == nil)
        #expect(try await b.status().peers.allSatisfy { !$0.connected })
    }

    /// `--keep` leaves the folder where it is, and no later account syncs it.
    @Test func aFolderKeptAtSignOutIsNotSyncedByTheNextAccount() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try a.write("Documents/kept.txt", "kept in place")
        try await waitUntil("the file indexed") {
            try await a.withClient { try await $0.items(container: a.container, path: "Documents") }.contains { $0.path == "Documents/kept.txt" }
        }
        let output = try await AgentProcess.cli(["account", "leave", "--keep", "--socket", a.socket])
        #expect(output.contains("Left \(a.root)"), "\(output)")
        #expect(a.read("Documents/kept.txt") == "kept in place")
        _ = try await AgentProcess.cli(["account", "create", "--socket", a.socket])
        let status = try await a.status()
        #expect(status.identityToken != nil && status.containers.isEmpty)
        #expect(status.containersNotSynced?.map(\.id) == [a.container])
        #expect(a.read("Documents/kept.txt") == "kept in place")
    }
}
