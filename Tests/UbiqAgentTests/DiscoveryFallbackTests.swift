import Foundation
import Testing
import UbiqTestSupport

/// Where avahi-daemon cannot be reached (as in the machine's own namespace here, where none
/// may run), an agent says so once and keeps syncing with its static peers.
@Suite(.serialized) struct DiscoveryFallbackTests {
    @Test func withoutAvahiTheAgentSaysSoOnceAndUsesStaticPeers() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        a.discovery = true
        b.discovery = true
        try await cluster.start()
        try await cluster.waitConnected()
        let status = try await a.status()
        #expect(status.discovery.hasPrefix("unavailable: "), "discovery: \(status.discovery)")
        try a.write("Documents/static.txt", "over a static peer")
        try await waitForConvergence([a, b], "the file over the static peer") { $0["Documents/static.txt"] != nil }
        for agent in [a, b] {
            #expect(agent.logText().components(separatedBy: "discovery unavailable").count - 1 == 1)
        }
    }
}
