import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// The account's devices with real agents: the list passes from device to device, and a
/// removed device is refused everywhere, its open connection ended, and gets no more data.
@Suite(.serialized) struct DevicesTests {
    @Test func devicesAreListedEverywhereAndARemovedOneIsRefused() async throws {
        // Gamma reaches alpha only through beta.
        let cluster = try await LiveCluster(["alpha", "beta", "gamma"], links: [[], [0], [1]])
        defer { cluster.stopAll() }
        let (a, b, c) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        try await cluster.start()
        try await cluster.waitConnected()
        try await waitUntil("every agent to list the three devices") {
            for agent in cluster.agents where Set(try await agent.withClient { try await $0.devices() }.map(\.name)) != ["alpha", "beta", "gamma"] {
                return false
            }
            return true
        }
        try await waitUntil("alpha to know when gamma was last seen") {
            try await a.withClient { try await $0.devices() }.first { $0.name == "gamma" }?.lastSeen != nil
        }
        let listed = try await a.withClient { try await $0.devices() }
        #expect(listed.first?.thisDevice == true && listed.first?.name == "alpha")
        let gamma = try #require(listed.first { $0.name == "gamma" })
        #expect(!gamma.connected && gamma.address != nil && gamma.containers == [c.container] && !gamma.removed)
        #expect(gamma.addresses == ["127.0.0.1:\(c.port)"], "gamma says it listens at \(gamma.addresses)")
        #expect(listed.first { $0.name == "beta" }?.connected == true)
        let table = try await AgentProcess.cli(["--socket", a.socket, "devices"])
        #expect(table.contains("gamma") && table.contains("this device") && table.contains("connected"), "\(table)")

        let output = try await AgentProcess.cli(["--socket", a.socket, "device", "remove", gamma.id.rawValue])
        #expect(output.contains("Removed"), "\(output)")
        try await waitUntil("beta to end gamma's open connection") {
            let removed = try await b.withClient { try await $0.devices() }.first { $0.id == gamma.id }?.removed == true
            let connected = try await b.status().peers.contains { $0.deviceID == gamma.id && $0.connected }
            return removed && !connected
        }
        try await waitUntil("beta to refuse gamma's next connection") {
            b.logText().contains("\(gamma.id) was removed from the account")
        }
        try a.write("Documents/after.txt", "after the removal")
        try await waitUntil("alpha's next file on beta") { b.read("Documents/after.txt") == "after the removal" }
        #expect(c.read("Documents/after.txt") == nil)
        #expect(try await c.status().peers.allSatisfy { !$0.connected })

        // Removing is idempotent; this device and unknown devices are refused.
        #expect(try await a.withClient { try await $0.removeDevice(gamma.id) }.device == gamma.id)
        for bad in [listed[0].id, DeviceID("NOTADEVICE")] {
            do {
                _ = try await a.withClient { try await $0.removeDevice(bad) }
                Issue.record("removed \(bad)")
            } catch let error as RPCError {
                #expect(error.code == .invalidParams || error.code == .notFound)
            }
        }
        // The list survives a restart.
        b.stop()
        try await b.startAndWait()
        #expect(try await b.withClient { try await $0.devices() }.first { $0.id == gamma.id }?.removed == true)
    }
}
