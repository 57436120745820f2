import Foundation
import Testing
import UbiqTestSupport

/// A normal stop is no failure: SIGTERM ends `ubiqd` with status 0 and an info line, with the
/// web page on (the default), alone and with a peer in the middle of a transfer. Under systemd
/// anything else marks the unit failed at every stop or logout.
@Suite struct StopTests {
    static func expectCleanStop(_ agent: AgentProcess) {
        let status = agent.stop()
        let log = agent.logText()
        #expect(status == 0, "\(agent.name) exited \(status.map(String.init) ?? "?"): \(log.suffix(2000))")
        #expect(!log.contains("critical"), "\(log.suffix(2000))")
        #expect(log.split(separator: "\n").contains { $0.contains(" info ubiqd: ") && $0.hasSuffix(" agent stopped") }, "\(log.suffix(2000))")
    }

    @Test func anAgentAloneWithItsWebPageStopsCleanly() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        a.webPagePort = 0
        try await cluster.start()
        try await waitUntil("the web page to be served") { (try? await a.webPageAddress()) != nil }
        Self.expectCleanStop(a)
    }

    @Test func anAgentStoppedDuringATransferFromAPeerStopsCleanly() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        a.webPagePort = 0
        b.webPagePort = 0
        try await cluster.start()
        try await cluster.waitConnected()
        let big = SeededBytes.data(96 << 20, seed: 11)
        try a.write("Documents/big.bin", big)
        try await waitUntil("beta to start fetching the file") { try await b.status().containers.first?.needItems ?? 0 > 0 }
        Self.expectCleanStop(b)
        Self.expectCleanStop(a)
    }
}
