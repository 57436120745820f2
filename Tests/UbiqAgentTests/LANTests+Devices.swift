import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

extension LANTests {
    /// A lost laptop on the LAN: removed on host 1, it is refused by every host within
    /// seconds (its open connections end too), and the account's next file never reaches it.
    @Test func aRemovedDeviceIsRefusedByEveryHostAndGetsNoData() async throws {
        let cluster = try await Cluster(hosts: 4)
        let (a, b, c, lost) = (cluster.agents[0], cluster.agents[1], cluster.agents[2], cluster.agents[3])
        try await cluster.start()
        try await cluster.waitConnected([a, b, c, lost])
        let lostID = try await lost.status().device.id
        try await waitUntil("every host to list the four devices") {
            for agent in [a, b, c] where try await agent.withClient({ try await $0.devices() }).count != 4 { return false }
            return true
        }

        // Each device says where it listens: its own LAN address, with the agent's port.
        let lostHost = try #require(lost.lanHost)
        let lostEntry = try #require(try await a.withClient { try await $0.devices() }.first { $0.id == lostID })
        #expect(lostEntry.addresses.contains("\(lostHost.address):\(lost.port)"), "\(lostEntry.addresses)")
        #expect(!lostEntry.addresses.contains { $0.hasPrefix("127.") || $0.hasPrefix("[::1]") })

        let clock = ContinuousClock()
        let removedAt = clock.now
        let output = try await AgentProcess.cli(["--socket", a.socket, "device", "remove", lostID.rawValue])
        #expect(output.contains("its connection has ended"), "\(output)")
        try await waitUntil("every host to end the lost device's connection", timeout: .seconds(10)) {
            for agent in [a, b, c] {
                let removed = try await agent.withClient { try await $0.devices() }.first { $0.id == lostID }?.removed == true
                let connected = try await agent.status().peers.contains { $0.deviceID == lostID && $0.connected }
                if !removed || connected { return false }
            }
            return true
        }
        print("device removal: every host refused the lost device after \(clock.now - removedAt)")
        #expect(try await lost.status().peers.allSatisfy { !$0.connected })

        try a.write("Documents/after.txt", "not for the lost laptop")
        try await waitForConvergence([a, b, c], "the next file on the account's hosts") { $0["Documents/after.txt"] != nil }
        // It keeps finding the hosts over mDNS and is refused at the handshake.
        try await waitUntil("a host to refuse the lost device's new connection") {
            [a, b, c].contains { $0.logText().contains("\(lostID) was removed from the account") }
        }
        #expect(lost.read("Documents/after.txt") == nil)
        #expect(try await lost.status().peers.allSatisfy { !$0.connected })
    }
}

extension LANTests {
    /// A new workstation on the LAN joins with the code a member printed, finding the member
    /// over mDNS by the code's hint (no address typed), then syncs with it.
    @Test func aWorkstationJoinsAcrossTheLANWithACode() async throws {
        let cluster = try await Cluster(hosts: 2)
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await AgentProcess.cli(["account", "leave", "--state", b.state])
        try await a.startAndWait()
        let invite = try JSONValue(parsing: try await AgentProcess.cli(["device", "invite", "--json", "--socket", a.socket]))
        let code = try #require(invite["code"]?.stringValue)
        let port = try #require(invite["port"]?.integerValue)
        try await waitUntil("host 2 to see the invitation announced") {
            try cluster.lan.host(2).output(["avahi-browse", "-rtp", "_ubiq._tcp"]).contains("join=\(port):")
        }
        let joined = try cluster.lan.host(2).output([AgentProcess.binDirectory + "/ubiq", "account", "join", "--code", code,
                                                     "--state", b.state, "--name", b.name])
        #expect(joined.contains(try #require(try await a.status().identityToken)), "\(joined)")
        try await b.startAndWait()
        try await cluster.waitConnected([a, b])
        try a.write("Documents/welcome.txt", "joined across the LAN")
        try await waitForConvergence([a, b], "the file on the new workstation") { $0["Documents/welcome.txt"] != nil }
    }
}

extension LANTests {
    /// A rotation on the LAN after a laptop is lost: the connected hosts take it at once, a
    /// host that was switched off takes it when it comes back, the identity token stays, and
    /// the lost laptop, given a new identity made with the old account key, is refused.
    @Test func aRotationReachesEveryHostAndShutsOutTheLostLaptop() async throws {
        let cluster = try await Cluster(hosts: 4)
        let (a, b, c, lost) = (cluster.agents[0], cluster.agents[1], cluster.agents[2], cluster.agents[3])
        try await cluster.start()
        try await cluster.waitConnected([a, b, c, lost])
        let lostID = try await lost.status().device.id
        let token = try await a.status().identityToken
        try await waitUntil("alpha to know the four devices") { try await a.withClient({ try await $0.devices() }).count == 4 }
        let oldBundle = lost.home + "/old-account.bundle"
        try await AgentProcess.cli(["account", "export", "--state", lost.state, "--out", oldBundle])
        c.stop()

        let output = try await AgentProcess.cli(["--socket", a.socket, "device", "remove", lostID.rawValue, "--rotate"])
        #expect(output.contains("generation 1") && !output.contains("Left out"), "\(output)")
        let alphaID = try await a.status().device.id
        try await waitUntil("host 2 to take the rotation and connect again") {
            let rotated = try RotationTests.generation(b) == 1
            let connected = try await b.status().peers.contains { $0.deviceID == alphaID && $0.connected }
            return rotated && connected
        }

        // The lost laptop makes itself a new identity with the old key and comes back.
        lost.stop()
        try await AgentProcess.cli(["account", "leave", "--state", lost.state])
        try await AgentProcess.cli(["account", "join", oldBundle, "--state", lost.state])
        try await lost.startAndWait()
        try await c.startAndWait()
        try a.write("Documents/after.txt", "after the rotation")
        try await waitForConvergence([a, b, c], "the next file on the account's hosts, host 3 rotated") { $0["Documents/after.txt"] != nil }
        #expect(try RotationTests.generation(c) == 1)
        #expect(try await c.status().identityToken == token)
        #expect(try await b.status().identityToken == token)
        try await waitUntil("a host to refuse the lost laptop's new identity") {
            [a, b, c].contains { $0.logText().contains("is not a member of the rotated account") }
        }
        #expect(lost.read("Documents/after.txt") == nil)
        #expect(try await lost.status().peers.allSatisfy { !$0.connected })
    }
}
