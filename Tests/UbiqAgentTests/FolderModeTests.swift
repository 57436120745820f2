import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// Folder modes with real agents: a send-only container sends its changes, lists its peers'
/// instead of applying them, and `ubiq override` makes the peers take its versions.
@Suite(.serialized) struct FolderModeTests {
    @Test func aSendOnlyContainerKeepsItsVersionAndOverrideSpreadsIt() async throws {
        let cluster = try LiveCluster(["alpha", "beta"])
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
        let listed = try AgentProcess.cli(["--socket", a.socket, "differences", a.container.rawValue])
        #expect(listed.contains("Documents/extra.txt") && listed.contains("deleted"), "\(listed)")

        let output = try AgentProcess.cli(["--socket", a.socket, "override", a.container.rawValue])
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
}
