import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// Folder modes with real agents: a send-only container sends its changes, lists its peers'
/// instead of applying them, and `ubiq override` makes the peers take its versions; a
/// receive-only container applies its peers' changes, lists its own instead of sending them,
/// and `ubiq revert` puts the account's versions back, keeping its own in the history.
@Suite(.serialized) struct FolderModeTests {
    @Test func aSendOnlyContainerKeepsItsVersionAndOverrideSpreadsIt() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        a.containerSettings = ["mode = \"send-only\""]
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/master.txt", "alpha's")
        try a.write("Documents/other.txt", "kept")
        try await waitUntil("alpha's files on beta") { b.read("Documents/master.txt") == "alpha's" && b.read("Documents/other.txt") == "kept" }

        try b.write("Documents/master.txt", "beta's edit")
        try b.write("Documents/extra.txt", "beta's new file")
        #expect(unlink(b.path("Documents/other.txt")) == 0)
        // Beta's folder changed its mtime too: that is a difference of its own.
        let files = ["Documents/extra.txt", "Documents/master.txt", "Documents/other.txt"]
        try await waitUntil("alpha to list beta's three changes") {
            try await a.withClient { try await $0.differences(a.container) }.filter { files.contains($0.path) }.count == 3
        }
        let differences = try await a.withClient { try await $0.differences(a.container) }.filter { files.contains($0.path) }
        #expect(differences.map(\.path) == files)
        #expect(differences[0].localVersion == nil && differences[2].peerDeleted)
        #expect(a.read("Documents/master.txt") == "alpha's" && a.read("Documents/other.txt") == "kept" && a.read("Documents/extra.txt") == nil)
        #expect(try await a.status().containers.first?.mode == "send-only")
        let listed = try await AgentProcess.cli(["--socket", a.socket, "differences", a.container.rawValue])
        #expect(listed.contains("Documents/extra.txt") && listed.contains("deleted"), "\(listed)")

        let output = try await AgentProcess.cli(["--socket", a.socket, "override", a.container.rawValue])
        #expect(output.contains("paths"), "\(output)")
        try await waitForConvergence([a, b], "alpha's versions on both") { tree in
            tree["Documents/extra.txt"] == nil && b.read("Documents/master.txt") == "alpha's" && b.read("Documents/other.txt") == "kept"
        }
        #expect(try await a.withClient { try await $0.differences(a.container) }.isEmpty)
        // Alpha's own changes still go out.
        try a.write("Documents/master.txt", "alpha's second")
        try await waitUntil("alpha's edit on beta") { b.read("Documents/master.txt") == "alpha's second" }
        // Override is for send-only containers.
        do {
            _ = try await b.withClient { try await $0.overrideDifferences(b.container) }
            Issue.record("beta, a send-receive container, was overridden")
        } catch let error as RPCError {
            #expect(error.code == .invalidParams)
        }
    }

    @Test func aReceiveOnlyContainerHoldsBackItsChangesAndRevertPutsTheAccountsBack() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        a.containerSettings = ["mode = \"receive-only\""]
        try await cluster.start()
        try await cluster.waitConnected()
        let accounts = ["Documents/edited.txt": "account's edited", "Documents/deleted.txt": "account's deleted",
                        "Documents/replaced.txt": "account's replaced"]
        for (path, text) in accounts { try b.write(path, text) }
        try await waitUntil("beta's files on alpha") { accounts.allSatisfy { a.read($0.key) == $0.value } }

        try a.write("Documents/edited.txt", "alpha's edit")
        try a.write("Documents/replaced.txt", "alpha's edit, soon replaced")
        try a.write("Documents/new.txt", "made on alpha")
        #expect(unlink(a.path("Documents/deleted.txt")) == 0)
        let changed = ["Documents/deleted.txt", "Documents/edited.txt", "Documents/new.txt", "Documents/replaced.txt"]
        try await waitUntil("alpha to list its four changes") {
            try await a.withClient { try await $0.differences(a.container) }.map(\.path) == changed
        }
        let differences = try await a.withClient { try await $0.differences(a.container) }
        #expect(differences.allSatisfy { $0.changedHere })
        #expect(differences[0].localDeleted && differences[0].peerVersion != nil)
        #expect(differences[1].localSize == 12 && !differences[1].localDeleted)
        #expect(differences[2].peerVersion == nil)
        let listed = try await AgentProcess.cli(["--socket", a.socket, "differences", a.container.rawValue])
        #expect(listed.contains("deleted here") && listed.contains("ubiq revert"), "\(listed)")
        #expect(try await a.status().containers.first?.mode == "receive-only")

        // Held back across a restart: found again, still not sent.
        a.stop()
        try await a.startAndWait()
        try await cluster.waitConnected()
        try await waitUntil("alpha to list its four changes after a restart") {
            try await a.withClient { try await $0.differences(a.container) }.map(\.path) == changed
        }

        // Beta's next change reaches alpha; none of alpha's reached beta.
        try b.write("Documents/marker.txt", "after")
        try await waitUntil("beta's marker on alpha") { a.read("Documents/marker.txt") == "after" }
        let betaUnchanged = accounts.allSatisfy { b.read($0.key) == $0.value }
        #expect(betaUnchanged && b.read("Documents/new.txt") == nil)

        // A peer's newer version replaces a change held back here, which is kept in the history.
        try b.write("Documents/replaced.txt", "beta's newer")
        try await waitUntil("beta's newer version on alpha") { a.read("Documents/replaced.txt") == "beta's newer" }
        #expect(try await kept(a, "Documents/replaced.txt").contains(Int64("alpha's edit, soon replaced".utf8.count)))

        let output = try await AgentProcess.cli(["--socket", a.socket, "revert", a.container.rawValue])
        #expect(output.contains("Reverted 3 paths"), "\(output)")
        #expect(a.read("Documents/edited.txt") == "account's edited" && a.read("Documents/deleted.txt") == "account's deleted")
        #expect(a.read("Documents/new.txt") == nil)
        #expect(try await a.withClient { try await $0.differences(a.container) }.isEmpty)
        #expect(try await kept(a, "Documents/edited.txt").contains(12))
        #expect(try await kept(a, "Documents/new.txt").contains(Int64("made on alpha".utf8.count)))
        try await waitForConvergence([a, b], "the account's versions on both") { tree in
            tree["Documents/new.txt"] == nil && tree["Documents/replaced.txt"] != nil
        }
        // Revert is for receive-only containers.
        do {
            _ = try await b.withClient { try await $0.revertLocalChanges(b.container) }
            Issue.record("beta, a send-receive container, was reverted")
        } catch let error as RPCError {
            #expect(error.code == .invalidParams)
        }
    }

    /// The sizes of the versions `agent` keeps of `path`.
    private func kept(_ agent: AgentProcess, _ path: String) async throws -> [Int64] {
        try await agent.withClient { try await $0.history(container: agent.container, path: path) }.versions
            .filter { $0.path == path }.map(\.size)
    }
}
