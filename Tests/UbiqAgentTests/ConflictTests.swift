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
        let listed = try await AgentProcess.cli(["--socket", a.socket, "versions", "\(a.container)", path, "--json"])
        let conflictID = try await a.versions(path).conflicts[0].id
        #expect(listed.contains(conflictID))

        try await AgentProcess.cli(["--socket", a.socket, "resolve", "\(a.container)", path, "--keep", conflictID])
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
