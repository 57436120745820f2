import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// Pause and resume with real agents: a paused container neither applies nor sends, still
/// indexes local changes, and a resume completes the transfer it stopped from where it was;
/// a container's pause and the whole agent's survive a restart, and the whole agent's drops every
/// connection.
@Suite(.serialized) struct PauseTests {
    @Test func pausingStopsATransferAndResumingCompletesIt() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let link = try await cluster.startThroughSlowLink(bytesPerSecond: 4 << 20)
        defer { link.close() }
        // Big enough that the three quarters left after the pause is asked for take 18 s on
        // the link, however slow this machine is to act on the pause.
        let size = 96 << 20
        try a.write("Documents/video.bin.nosync", SeededBytes.data(size, seed: 7))
        let expected = try TreeDigest.fileHash(a.path("Documents/video.bin.nosync"))
        #expect(rename(a.path("Documents/video.bin.nosync"), a.path("Documents/video.bin")) == 0)
        try await waitUntil("beta to be a quarter of the way", timeout: .seconds(60), every: .milliseconds(20)) {
            try await b.status().bytesReceived > Int64(size) / 4
        }

        let paused = try await AgentProcess.cli(["--socket", b.socket, "pause", b.container.rawValue])
        #expect(paused.contains("Paused: \(b.container.rawValue)"), "\(paused)")
        try await waitUntil("the transfer to stop") { try await b.status().containers.first?.transfers.isEmpty == true }
        // Heard of, not applied: a paused container still takes in its peers' index.
        let later = "written while beta is paused"
        try a.write("Documents/later.txt", later)
        try b.write("Documents/local.txt", "beta's own, written while paused")
        do {
            // The bytes needed are the two files' (a new mtime of their folder may be needed too).
            try await waitUntil("beta to hear of alpha's file and index its own") {
                let status = try #require(try await b.status().containers.first)
                let indexed = try await b.items(in: "Documents").contains { $0.path == "Documents/local.txt" }
                return status.needBytes == Int64(size + later.utf8.count) && status.paused && indexed
            }
        } catch {
            let status = try await b.status().containers.first
            let seen = [status?.needItems.description, status?.needBytes.description, status?.paused.description].map { $0 ?? "nil" }
            Issue.record("beta's container: needItems \(seen[0]), needBytes \(seen[1]), paused \(seen[2])")
            throw error
        }
        #expect(b.read("Documents/later.txt") == nil && !FileManager.default.fileExists(atPath: b.path("Documents/video.bin")))
        let failures = try await b.status().containers.first?.failures ?? []
        #expect(failures.isEmpty, "a pause was taken for a failure: \(failures)")
        #expect(try await AgentProcess.cli(["--socket", b.socket, "status"]).contains("paused"))

        let resumed = try await b.withClient { try await $0.resume(b.container) }
        #expect(resumed == PauseResult(agentPaused: false, pausedContainers: []))
        link.limit(bytesPerSecond: nil)
        try await waitForConvergence([a, b], timeout: .seconds(120), "everything on both after the resume") { tree in
            tree["Documents/video.bin"] == expected && tree["Documents/later.txt"] != nil && tree["Documents/local.txt"] != nil
        }
        let received = try await b.status().bytesReceived
        #expect(received < Int64(size) * 12 / 10, "\(received) bytes received for a \(size)-byte file: the resume started over")
    }

    /// The whole agent paused: every connection ends and none is taken, across a restart;
    /// local changes are indexed meanwhile and reach the peer on resume.
    @Test func theWholeAgentPausedStaysPausedAcrossARestart() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let result = try await b.withClient { try await $0.pause() }
        #expect(result.agentPaused)
        try await waitUntil("both to see the connection gone") {
            let alphaAlone = try await a.status().peers.allSatisfy { !$0.connected }
            let betaAlone = try await b.status().peers.allSatisfy { !$0.connected }
            return alphaAlone && betaAlone
        }
        b.stop()
        try await b.startAndWait()
        #expect(try await b.status().paused)
        try b.write("Documents/offline.txt", "from beta")
        try await waitUntil("beta to index its file") { (try await b.items(in: "Documents")).contains { $0.path == "Documents/offline.txt" } }
        let betaAlone = try await b.status().peers.allSatisfy { !$0.connected }
        let alphaAlone = try await a.status().peers.allSatisfy { !$0.connected }
        #expect(betaAlone && alphaAlone)

        _ = try await AgentProcess.cli(["--socket", b.socket, "resume"])
        try await waitUntil("beta's file on alpha after the resume") { a.read("Documents/offline.txt") == "from beta" }
        #expect(try await b.status().paused == false)
    }

    /// A peer refused by a paused agent is dialed again as an unreachable one is, not a minute
    /// later: alpha dials no one (beta dials it), so the link comes back only through beta.
    @Test func theWholeAgentResumedTakesItsPeerBackWithinSeconds() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        _ = try await a.withClient { try await $0.pause() }
        try await waitUntil("beta to be refused by the paused alpha") {
            try await b.status().peers.contains { !$0.connected && $0.lastError?.contains("hello") == true }
        }
        _ = try await a.withClient { try await $0.resume() }
        // A refusal made beta wait 60 s before it dialed again.
        try await waitUntil("beta to reconnect", timeout: .seconds(30)) { try await b.status().peers.contains(where: \.connected) }
    }

    /// A paused container stays paused across a restart, and what is written in it meanwhile
    /// is indexed but not sent: the peer never hears of it until the resume, while the paused
    /// device goes on hearing of the peer's changes.
    @Test func aPausedContainerStaysPausedAcrossARestartAndSendsNothing() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let paused = try await b.withClient { try await $0.pause(b.container) }
        #expect(paused == PauseResult(agentPaused: false, pausedContainers: [b.container]))
        b.stop()
        try b.write("Documents/held.txt", "written on beta while its container is paused")
        try await b.startAndWait()
        try await cluster.waitConnected()
        #expect(try await b.status().containers.first?.paused == true)
        try await waitUntil("beta to index its file") { try await b.items(in: "Documents").contains { $0.path == "Documents/held.txt" } }
        for name in ["first.txt", "second.txt"] {
            let before = try #require(try await b.status().containers.first?.needItems)
            try a.write("Documents/\(name)", "from alpha")
            try await waitUntil("beta to hear of alpha's \(name)") { try await b.status().containers.first?.needItems ?? 0 > before }
        }
        #expect(try await a.status().containers.first?.needItems == 0, "alpha heard of a change in beta's paused container")
        #expect(a.read("Documents/held.txt") == nil && b.read("Documents/first.txt") == nil)

        _ = try await AgentProcess.cli(["--socket", b.socket, "resume", b.container.rawValue])
        try await waitForConvergence([a, b], "everything on both after the resume") { tree in
            tree["Documents/held.txt"] != nil && tree["Documents/second.txt"] != nil
        }
    }
}
