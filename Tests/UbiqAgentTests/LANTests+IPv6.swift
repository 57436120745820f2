import Foundation
import Testing
import UbiqTestSupport

extension LANTests {
    /// IPv6 on the LAN: unique-local addresses on the bridge, host 2 with no IPv4 at all, and
    /// on each host an extra address, announced over mDNS and sorted first, that the other
    /// host cannot reach (a VPN's: the other routes it into a black hole, where SYNs vanish).
    /// Both agents listen on the default dual-stack address, find each other over mDNS on
    /// IPv6, dial past the dead address and sync.
    @Test func anIPv6OnlyHostIsReachedPastADeadAddressAndSyncs() async throws {
        let cluster = try await Cluster(hosts: 2, addressing: .dualStack(ipv6Only: [2]))
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let hosts = [cluster.lan.host(1), cluster.lan.host(2)]
        for host in hosts {
            let dead = "fd00:0:0:1::\(host.index)"
            try host.output(["ip", "addr", "add", "\(dead)/128", "dev", host.interface, "nodad"])
            try cluster.lan.blackHole("fd00:0:0:1::/64", for: host)
            try await waitUntil("avahi on \(host.hostName) to announce \(dead)", timeout: .seconds(15)) {
                host.avahiLog().contains("address record for \(dead) on \(host.interface)")
            }
        }
        #expect(try hosts[1].output(["ip", "-4", "-o", "addr", "show", "scope", "global"]).isEmpty, "host 2 has an IPv4 address")

        try await cluster.start()
        try await cluster.waitConnected([a, b])
        #expect(a.logText().contains("listening: [::]:22100"))
        #expect(b.logText().contains("listening: [::]:22100"))
        #expect(a.logText().contains("fd00:0:0:1::2"), "host 1 never heard of host 2's dead address")
        for agent in [a, b] {
            for peer in try await agent.status().peers {
                #expect(peer.address.hasPrefix("[fd00:0:0:2::"), "\(agent.name) reached its peer at \(peer.address)")
            }
        }

        try a.write("Documents/from-dual-stack.txt", "over IPv6")
        try b.write("Documents/from-ipv6-only.txt", "no IPv4 here")
        try await waitForConvergence([a, b], "both files on both hosts") {
            $0["Documents/from-dual-stack.txt"] != nil && $0["Documents/from-ipv6-only.txt"] != nil
        }
        #expect(b.read("Documents/from-dual-stack.txt") == "over IPv6")
        #expect(a.read("Documents/from-ipv6-only.txt") == "no IPv4 here")

        // Two agents that find each other may both dial; the link the smaller device dialed is
        // the one both keep (LinkChoice). Once it is in use, a new address on host 2 is heard
        // of (mDNS may first say the host left); the link stays, and syncing goes on over it.
        let ids = (try await a.status().device.id, try await b.status().device.id)
        let smaller = ids.0 < ids.1 ? a : b
        try await waitUntil("the link the smaller device dialed to be in use") {
            try await smaller.status().peers.first?.address.hasSuffix(":\(AgentProcess.defaultPort)") == true
        }
        let since = try await a.status().peers.map(\.since)
        try hosts[1].output(["ip", "addr", "add", "fd00:0:0:2::22/64", "dev", hosts[1].interface, "nodad"])
        try await waitUntil("host 1 to hear of host 2's new address", timeout: .seconds(30)) {
            a.logText().contains("fd00:0:0:2::22")
        }
        try b.write("Documents/after-new-address.txt", "same link")
        try await waitForConvergence([a, b], "the file over the same link") { $0["Documents/after-new-address.txt"] != nil }
        #expect(try await a.status().peers.map(\.since) == since, "the link was made again")
    }
}
