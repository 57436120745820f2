import Foundation
import Testing
import UbiqTestSupport

/// Real agents on loopback keep a container identical through every kind of change.
@Suite(.serialized) struct ConvergenceTests {
    @Test func createEditDeleteRenameConverge() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        #expect(FileManager.default.fileExists(atPath: a.path("Documents")))
        try await cluster.waitConnected()

        try a.write("Documents/note.txt", "first words")
        try a.write("Documents/Deep/er/nested.md", "# nested")
        try a.write("Documents/empty", Data())
        try FileManager.default.createSymbolicLink(atPath: a.path("Documents/link"), withDestinationPath: "note.txt")
        try FileManager.default.createDirectory(atPath: a.path("Documents/Empty Folder"), withIntermediateDirectories: true)
        try a.write("Documents/run.sh", "#!/bin/sh\necho hi\n")
        chmod(a.path("Documents/run.sh"), 0o755)
        try a.write("Documents/cache.nosync/big", "never synced")
        try await waitForConvergence([a, b], "the new files on beta") { tree in
            tree["Documents/note.txt"] != nil && tree["Documents/run.sh"]?.hasSuffix("+x") == true
                && tree["Documents/link"] == "link:note.txt" && tree["Documents/Empty Folder"] == "dir"
                && tree["Documents/empty"] != nil && tree["Documents/Deep/er/nested.md"] != nil
        }
        #expect(!FileManager.default.fileExists(atPath: b.path("Documents/cache.nosync/big")))

        try b.write("Documents/note.txt", "first words, edited on beta")
        try await waitForConvergence([a, b], "the edit on alpha") { _ in a.read("Documents/note.txt") == "first words, edited on beta" }

        try FileManager.default.moveItem(atPath: a.path("Documents/Deep"), toPath: a.path("Documents/Shallow"))
        try FileManager.default.removeItem(atPath: a.path("Documents/empty"))
        try await waitForConvergence([a, b], "the rename and delete on beta") { tree in
            tree["Documents/Shallow/er/nested.md"] != nil && tree["Documents/Deep"] == nil && tree["Documents/empty"] == nil
        }
        let status = try await b.status()
        #expect(status.conflicts == 0)
        #expect(status.containers.first?.needItems == 0)
    }

    @Test func threeAgentsInALineConverge() async throws {
        // alpha - beta - gamma: alpha and gamma never meet.
        let cluster = try await LiveCluster(["alpha", "beta", "gamma"], links: [[], [0], [1]])
        defer { cluster.stopAll() }
        let (a, b, c) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/from-alpha.txt", "hello from alpha")
        try c.write("Documents/from-gamma.txt", "hello from gamma")
        try await waitForConvergence([a, b, c], "the line to relay both files") { tree in
            tree["Documents/from-alpha.txt"] != nil && tree["Documents/from-gamma.txt"] != nil
        }
        let peersOfAlpha = try await a.status().peers.filter(\.connected).map(\.name)
        #expect(peersOfAlpha == ["beta"])
    }
}
