import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqIdentity
import UbiqModel
import UbiqTestSupport

/// Rotating the account's key with real agents: after a device is removed and the account
/// rotated, a connected device takes the new certificate over its open connection, a device
/// that was offline takes it from a member at its next connection, the identity token stays,
/// and neither the removed device nor a certificate it signs itself with the old key gets in.
@Suite(.serialized) struct RotationTests {
    @Test func aRotationReachesTheConnectedAndTheOfflineAndShutsOutTheRemoved() async throws {
        // Delta is the lost laptop; gamma is switched off while the account rotates.
        let cluster = try await LiveCluster(["alpha", "beta", "gamma", "delta"], links: [[], [0], [0, 1], [0, 1]])
        defer { cluster.stopAll() }
        let (a, b, c, d) = (cluster.agents[0], cluster.agents[1], cluster.agents[2], cluster.agents[3])
        try await cluster.start()
        try await cluster.waitConnected()
        try await waitUntil("alpha to know every device") { try await a.withClient { try await $0.devices() }.count == 4 }
        let token = try await a.withClient { try await $0.identity() }.identityToken
        let delta = try await d.withClient { try await $0.identity() }.deviceID
        c.stop()

        let output = try await AgentProcess.cli(["--socket", a.socket, "device", "remove", delta.rawValue, "--rotate"])
        #expect(output.contains("Removed \(delta)") && output.contains("generation 1") && !output.contains("Left out"), "\(output)")
        try await waitUntil("beta to take the rotation and connect to alpha again") {
            let rotated = try Self.generation(b) == 1
            let connected = try await b.status().peers.contains { $0.name == "alpha" && $0.connected }
            return rotated && connected
        }
        #expect(try Self.generation(a) == 1)
        #expect(b.logText().contains("took the account's rotation over an open connection"))
        #expect(try await b.withClient { try await $0.identity() }.identityToken == token, "the token changed with the rotation")
        try a.write("Documents/after.txt", "after the rotation")
        try await waitUntil("alpha's file on beta") { b.read("Documents/after.txt") == "after the rotation" }
        // The removal outlives the key it was signed with: a second rotation leaves delta out.
        for agent in [a, b] {
            #expect(try await agent.withClient { try await $0.devices() }.first { $0.id == delta }?.removed == true, "\(agent.name)")
        }
        let second = try await a.withClient { try await $0.rotateAccount() }
        #expect(second.generation == 2 && !second.kept.contains(delta) && second.kept.count == 3, "\(second)")
        try await waitUntil("beta to take the second rotation and connect to alpha again") {
            let rotated = try Self.generation(b) == 2
            let connected = try await b.status().peers.contains { $0.name == "alpha" && $0.connected }
            return rotated && connected
        }

        // The lost laptop signs itself a new device certificate with the old account key.
        let mallory = try AgentProcess(name: "mallory", in: cluster.directory)
        try await mallory.join(d)
        mallory.peers = [a.port, b.port]
        try await mallory.startAndWait()
        defer { mallory.stop() }
        try await waitUntil("alpha and beta to refuse the self-made certificate") {
            a.logText().contains("is not a member of the rotated account") && b.logText().contains("is not a member of the rotated account")
        }
        // The lost laptop rotates the account itself with the old key: its new CA reaches
        // nobody's, so it connects to no member, and the members keep the account's CA.
        let authority = try IdentityStore(state: StateDirectory(path: a.state)).rotations().last?.authority
        #expect(try await d.withClient { try await $0.rotateAccount() }.generation == 1)
        let refusedBefore = d.logText().components(separatedBy: "refused a peer's certificate").count
        try await waitUntil("the lost laptop to fail to connect with its own rotation") {
            d.logText().components(separatedBy: "refused a peer's certificate").count > refusedBefore + 1
        }
        #expect(try IdentityStore(state: StateDirectory(path: a.state)).rotations().last?.authority == authority)
        #expect(try IdentityStore(state: StateDirectory(path: b.state)).rotations().last?.authority == authority)

        // Gamma was off: it takes the rotation from a member and syncs.
        try await c.startAndWait()
        try await waitUntil("gamma to take the rotation and alpha's file") {
            try Self.generation(c) == 2 && c.read("Documents/after.txt") == "after the rotation"
        }
        #expect(try await c.withClient { try await $0.identity() }.identityToken == token)
        #expect(c.logText().contains("took the account's rotation from a peer"))
        for outsider in [d, mallory] {
            #expect(outsider.read("Documents/after.txt") == nil, "\(outsider.name) got a file after the rotation")
            #expect(try await outsider.status().peers.allSatisfy { !$0.connected }, "\(outsider.name) is connected")
        }
    }

    /// A rotation restarts the agent's syncing, but an application's subscriptions carry on:
    /// its token does not change, and a key-value subscriber hears the next change.
    @Test func anApplicationHearsNothingOfARotationButTheNextChange() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        for agent in cluster.agents { agent.extraArguments = ["--kvstore", KeyValuePair.store.rawValue] }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let token = try #require(try await b.status().identityToken)
        let tokens = TokenLog(Ubiquity(socketPath: b.socket).identityChanges())
        try await waitUntil("beta's token") { tokens.values == [token] }
        let watcher = try await UbiqAgentClient.connect(socketPath: b.socket)
        defer { Task { await watcher.close() } }
        let notices = StreamLog(try await watcher.keyValueChanges(store: KeyValuePair.store))

        _ = try await a.withClient { try await $0.rotateAccount() }
        try await waitUntil("beta to take the rotation and connect to alpha again") {
            let rotated = try Self.generation(b) == 1
            let connected = try await b.status().peers.contains { $0.name == "alpha" && $0.connected }
            return rotated && connected
        }
        try await a.withClient { try await $0.set(store: KeyValuePair.store, ["after": .string("the rotation")]) }
        try await waitUntil("beta's subscriber to hear of the key set after the rotation") {
            notices.values.contains { $0.keys.contains("after") }
        }
        #expect(tokens.values == [token], "a rotation looked like an account change: \(tokens.values)")
    }

    static func generation(_ agent: AgentProcess) throws -> Int {
        try IdentityStore(state: StateDirectory(path: agent.state)).generation()
    }
}
