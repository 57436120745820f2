import Foundation
import Testing
import UbiqTestSupport

/// What an agent learned survives a restart: files are not hashed again, and the index
/// exchange resumes where it stopped instead of starting over.
@Suite(.serialized) struct RestartTests {
    @Test func aRestartNeitherRehashesNorResendsTheIndex() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        for i in 0..<300 { try a.write("Documents/notes/note-\(i).txt", "note number \(i) " + String(repeating: "x", count: i)) }
        try await waitForConvergence([a, b], "300 notes on beta") { $0.count >= 302 }
        // The exchange is complete once beta's index has reached alpha: alpha then knows
        // another device holds each note.
        try await waitUntil("alpha to learn that beta holds every note") {
            try await a.withClient { client in
                for i in 0..<300 where try await client.itemStatus(container: a.container, path: "Documents/notes/note-\(i).txt").uploaded != true {
                    return false
                }
                return true
            }
        }

        a.stop()
        b.stop()
        try await a.startAndWait()
        try await b.startAndWait()
        try await cluster.waitConnected()
        try b.write("Documents/after-restart.txt", "new")
        try await waitForConvergence([a, b], "the new note on alpha") { $0["Documents/after-restart.txt"] != nil }

        for agent in [a, b] {
            let scans = agent.logText().components(separatedBy: "\n").filter { $0.contains("scanned container") }
            #expect(scans.count == 2)
            #expect(scans.last?.contains("hashed=0") == true, "\(agent.name) hashed files again after a restart: \(scans)")
        }
        // The first exchange carried 300 entries; after the restart only the new one moves.
        let received = try await a.status().peers.first { $0.connected }?.bytesReceived ?? 0
        let sent = try await a.status().peers.first { $0.connected }?.bytesSent ?? 0
        print("after restart: alpha received \(received), sent \(sent) bytes")
        #expect(received < 4096)
        #expect(sent < 4096)
    }
}
