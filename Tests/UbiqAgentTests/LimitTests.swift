import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqIdentity
import UbiqTestSupport

/// Bandwidth limits with real agents: a receive limit holds a transfer to its rate, a change
/// at run time takes effect without dropping the connection, and a peer's own limit from the
/// config file holds only that peer.
@Suite(.serialized) struct LimitTests {
    static func size(_ agent: AgentProcess, _ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: agent.path(path))[.size] as? Int) ?? nil
    }

    @Test func aReceiveLimitHoldsATransferAndAChangeKeepsTheConnection() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let since = try #require(try await b.status().peers.first?.since)
        let shown = try await AgentProcess.cli(["--socket", b.socket, "limit", "--receive", "2MiB"])
        #expect(shown.contains("2.0 MiB/s"), "\(shown)")

        let size = 6 << 20
        try a.write("Documents/one.bin.nosync", SeededBytes.data(size, seed: 3))
        let clock = ContinuousClock()
        let start = clock.now
        #expect(rename(a.path("Documents/one.bin.nosync"), a.path("Documents/one.bin")) == 0)
        try await waitUntil("the file on beta", timeout: .seconds(60)) { Self.size(b, "Documents/one.bin") == size }
        let elapsed = clock.now - start
        // 6 MiB at 2 MiB a second, less the tenth of a second the bucket saves: at least 2.5 s
        // however fast the machine.
        #expect(elapsed > .milliseconds(2500), "6 MiB arrived in \(elapsed) under a 2 MiB/s limit")
        #expect(try await b.status().limits?.receive.limit == 2 << 20)

        _ = try await b.withClient { try await $0.setLimits(LimitsSetParams(receive: .bytesPerSecond(256 << 10))) }
        let before = try await b.status().bytesReceived
        try a.write("Documents/two.bin.nosync", SeededBytes.data(size, seed: 4))
        #expect(rename(a.path("Documents/two.bin.nosync"), a.path("Documents/two.bin")) == 0)
        try await waitUntil("beta to receive 512 KiB of it") { try await b.status().bytesReceived > before + (512 << 10) }
        let lifted = try await b.withClient { try await $0.setLimits(LimitsSetParams(receive: .unlimited)) }
        #expect(lifted.receive.limit == nil)
        try await waitUntil("the second file on beta", timeout: .seconds(30)) { Self.size(b, "Documents/two.bin") == size }
        let peer = try #require(try await b.status().peers.first)
        #expect(peer.connected && peer.since == since, "the connection was replaced")

        for bad in ["0", "-5", "fast", "200GiB"] {
            await #expect(throws: (any Error).self, "\(bad)") { try await AgentProcess.cli(["--socket", b.socket, "limit", "--send", bad]) }
        }
        do {
            _ = try await b.withClient { try await $0.connection.call(ControlMethod.limitsSet.rawValue, params: JSONValue.object(["send": 0])) as LimitsStatus }
            Issue.record("a limit of 0 was taken")
        } catch let error as RPCError {
            #expect(error.code == .invalidParams)
        }
    }

    @Test func aPeerLimitFromTheConfigHoldsOnlyThatPeer() async throws {
        let cluster = try await LiveCluster(["alpha", "beta", "gamma"])
        defer { cluster.stopAll() }
        let (a, b, c) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        let beta = try #require(try IdentityStore(state: StateDirectory(path: b.state)).load()?.deviceID)
        a.configTables = ["[[peer_limit]]", "device = \"\(beta)\"", "max_send_kib_per_second = 1024"]
        try await cluster.start()
        try await cluster.waitConnected()
        let limits = try #require(try await a.status().limits)
        #expect(limits.send.limit == nil && limits.receive.limit == nil)
        // Peers moving bytes are listed too, with no limit of their own.
        let limited = limits.peers.filter { $0.send.limit != nil || $0.receive.limit != nil }
        #expect(limited.map(\.device) == [beta])
        #expect(limited.first?.send.limit == 1 << 20 && limited.first?.receive.limit == nil)

        let size = 4 << 20
        try a.write("Documents/held.bin.nosync", SeededBytes.data(size, seed: 5))
        let clock = ContinuousClock()
        let start = clock.now
        #expect(rename(a.path("Documents/held.bin.nosync"), a.path("Documents/held.bin")) == 0)
        try await waitUntil("the file on gamma", timeout: .seconds(60)) { Self.size(c, "Documents/held.bin") == size }
        try await waitUntil("the file on beta", timeout: .seconds(60)) { Self.size(b, "Documents/held.bin") == size }
        // 4 MiB at 1 MiB a second, less what the bucket saves: at least 2.5 s however fast the machine.
        let elapsed = clock.now - start
        #expect(elapsed > .milliseconds(2500), "4 MiB reached beta in \(elapsed) under a 1 MiB/s limit of its own")

        let shown = try await AgentProcess.cli(["--socket", a.socket, "limit", "--json"])
        #expect(shown.contains(beta.rawValue), "\(shown)")
        do {
            _ = try await a.withClient {
                try await $0.connection.call(ControlMethod.limitsSet.rawValue, params: JSONValue.object(["peer": "not a device", "send": 1024])) as LimitsStatus
            }
            Issue.record("a limit for a malformed device ID was taken")
        } catch let error as RPCError {
            #expect(error.code == .invalidParams)
        }
    }
}
