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
        // The first-start banner says where the page is and how to open it.
        #expect(a.logText().contains("web page: `ubiq ui` opens it"), "\(a.logText().prefix(1500))")
        Self.expectCleanStop(a)
    }

    @Test func anAgentStoppedDuringATransferFromAPeerStopsCleanly() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        a.webPagePort = 0
        b.webPagePort = 0
        // 96 MiB through a link of 4 MiB a second: beta is stopped an eighth of the way.
        let link = try await cluster.startThroughSlowLink(bytesPerSecond: 4 << 20)
        defer { link.close() }
        let size = 96 << 20
        // Written whole outside what syncs, then moved in: no partial version travels first.
        try a.write("Documents/big.bin.nosync", SeededBytes.data(size, seed: 11))
        #expect(rename(a.path("Documents/big.bin.nosync"), a.path("Documents/big.bin")) == 0)
        try await waitUntil("beta to be on its way", every: .milliseconds(20)) { try await b.status().bytesReceived > Int64(size) / 8 }
        Self.expectCleanStop(b)
        Self.expectCleanStop(a)
    }
}
