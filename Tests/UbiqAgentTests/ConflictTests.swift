import Foundation
import Testing
import UbiqTestSupport

/// Concurrent edits lose nothing: both devices keep the same current version and the same
/// conflict version until someone resolves it, and the resolution reaches both.
@Suite(.serialized) struct ConflictTests {
    @Test func concurrentEditsWhileOneAgentIsStopped() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/doc.txt"
        try a.write(path, "version zero")
        try await waitForConvergence([a, b], "the first version on beta") { _ in b.read(path) == "version zero" }
        let original = try await a.versions(path).current.id

        b.stop()
        try a.write(path, "edited on alpha")
        try await waitUntil("alpha to record its edit") { try await a.versions(path).current.id != original }
        try b.write(path, "edited on beta, later")
        try await b.startAndWait()

        try await waitUntil("both agents to agree on the conflict") {
            let (va, vb) = (try await a.versions(path), try await b.versions(path))
            return va.current.id == vb.current.id && va.conflicts.map(\.id) == vb.conflicts.map(\.id) && va.conflicts.count == 1
                && a.read(path) == b.read(path)
        }
        // The later edit is current everywhere; the other is kept as the conflict version.
        #expect(a.read(path) == "edited on beta, later")
        let status = try await a.status()
        #expect(status.conflicts == 1)
        // Each agent keeps the losing version's content (a device that won fetches it after
        // recording the merge).
        try await waitUntil("both agents to keep the losing version") {
            try [a, b].allSatisfy { agent in
                let kept = try FileManager.default.contentsOfDirectory(atPath: agent.root + "/.ubiq/versions")
                return kept.map { try? String(contentsOfFile: agent.root + "/.ubiq/versions/" + $0, encoding: .utf8) }
                    == ["edited on alpha"]
            }
        }
        // Fetching the losing version while its maker records the merge is routine: no warning.
        for agent in [a, b] {
            let warned = agent.logText().split(separator: "\n").filter { $0.contains(" warning ") && $0.contains("no connected peer served") }
            #expect(warned.isEmpty, "\(agent.name): \(warned)")
        }
        let listed = try await AgentProcess.cli(["--socket", a.socket, "versions", "\(a.container)", path, "--json"])
        let conflictID = try await a.versions(path).conflicts[0].id
        #expect(listed.contains(conflictID))

        // A person reads the conflict version and compares it before choosing.
        let shown = try await AgentProcess.cli(["--socket", a.socket, "versions", "\(a.container)", path, "--show", conflictID])
        #expect(shown == "edited on alpha", "\(shown)")
        let diff = try await AgentProcess.cli(["--socket", a.socket, "versions", "\(a.container)", path, "--diff", conflictID])
        #expect(diff.contains("-edited on beta, later\n+edited on alpha"), "\(diff)")
        #expect(diff.contains("@@ -1,1 +1,1 @@") && diff.contains("(\(conflictID))"), "\(diff)")

        let resolved = try await AgentProcess.cli(["--socket", a.socket, "resolve", "\(a.container)", path, "--keep", conflictID])
        // The ID the person gave, and the history where the others went; no "discarded".
        #expect(resolved.contains("Kept \(conflictID) at \(path)") && resolved.contains("history") && !resolved.contains("discarded"),
                "\(resolved)")
        try await waitUntil("the resolution to reach both") {
            let (va, vb) = (try await a.versions(path), try await b.versions(path))
            return va.conflicts.isEmpty && vb.conflicts.isEmpty && a.read(path) == "edited on alpha" && b.read(path) == "edited on alpha"
        }
        try await waitUntil("kept versions to be dropped") {
            try [a, b].allSatisfy { try FileManager.default.contentsOfDirectory(atPath: $0.root + "/.ubiq/versions").isEmpty }
        }
    }

    @Test func modificationBeatsDeletion() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/keep-me.txt"
        try a.write(path, "original")
        try await waitForConvergence([a, b], "the file on beta") { _ in b.read(path) == "original" }
        let original = try await a.versions(path).current.id

        b.stop()
        try FileManager.default.removeItem(atPath: a.path(path))
        try await waitUntil("alpha to record the deletion") { try await a.versions(path).current.id != original }
        try b.write(path, "modified while alpha deleted it")
        try await b.startAndWait()
        try await waitForConvergence([a, b], "the modification to win") { _ in a.read(path) == "modified while alpha deleted it" }
    }
}
