import Foundation
import Testing
import UbiqTestSupport

/// Two agents that each name the other with `--peer` keep one connection between them: the
/// one that is not kept is not dialed again and again, and dropping a link never cuts
/// transfers in flight.
@Suite struct OneConnectionTests {
    @Test func agentsThatNameEachOtherKeepOneConnection() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"], links: [[1], [0]])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        // Changes both ways, each awaited, and a file of many runs of chunks: a link
        // replaced meanwhile would cut its fetches.
        let large = SeededBytes.data(24 << 20, seed: 18)
        try a.write("Documents/large.bin", large)
        for round in 0..<40 {
            let (writer, reader) = round % 2 == 0 ? (a, b) : (b, a)
            try writer.write("Documents/round-\(round).txt", "round \(round)")
            try await waitUntil("round \(round) to reach \(reader.name)") { reader.read("Documents/round-\(round).txt") == "round \(round)" }
        }
        try await waitUntil("the large file to reach beta") {
            FileManager.default.contents(atPath: b.path("Documents/large.bin")) == large
        }

        // Both may dial at the start; one of those links is closed at once, and none after.
        func accepted(_ agent: AgentProcess) -> Int { agent.logText().components(separatedBy: "Accepted a peer connection").count - 1 }
        #expect(accepted(a) <= 2 && accepted(b) <= 2, "alpha accepted \(accepted(a)) connections, beta \(accepted(b))")
        for agent in [a, b] {
            // Once at most, when both links arrive together at the start.
            let replaced = agent.logText().components(separatedBy: "replaces the one in use").count - 1
            #expect(replaced <= 1, "\(agent.name) replaced a link in use \(replaced) times")
        }
        #expect(try await a.status().peers.filter(\.connected).count == 1)
    }
}
