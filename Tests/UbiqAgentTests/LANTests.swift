import Foundation
import Testing
import UbiqTestSupport

/// Workstations on a LAN of network namespaces, each with its own avahi-daemon: agents find
/// each other over mDNS with no `--peer` flag (DESIGN.md §7).
@Suite(.serialized, .enabled(if: NamespaceLAN.isSupported, "needs root, network namespaces, dbus and avahi-daemon"))
struct LANTests {
    /// Agents of one account on the LAN's hosts, discovery on, no static peers.
    final class Cluster {
        let directory: TempDirectory
        let lan: NamespaceLAN
        let agents: [AgentProcess]

        init(hosts: Int, strangers: Set<Int> = [], addressing: LANAddressing = .ipv4,
             configure: (AgentProcess) -> Void = { _ in }) async throws {
            directory = try TempDirectory(prefix: "ubiq-lan")
            lan = try NamespaceLAN(hosts: hosts, prefix: "ubiqlan-agents", addressing: addressing)
            var agents: [AgentProcess] = []
            for i in 1...hosts {
                let agent = try AgentProcess(name: "h\(i)", in: directory, port: AgentProcess.defaultPort)
                agent.discovery = true
                agent.lanHost = lan.host(i)
                configure(agent)
                agents.append(agent)
            }
            try await agents[0].createAccount()
            for (i, agent) in agents.enumerated().dropFirst() {
                if strangers.contains(i + 1) { try await agent.createAccount() } else { try await agent.join(agents[0]) }
            }
            self.agents = agents
        }

        func start() async throws {
            for agent in agents { try await agent.startAndWait() }
        }

        func waitConnected(_ group: [AgentProcess]) async throws {
            try await waitUntil("agents to discover and connect", timeout: .seconds(60)) {
                for agent in group {
                    let connected = Set(try await agent.status().peers.filter(\.connected).map(\.name))
                    if !group.filter({ $0 !== agent }).allSatisfy({ connected.contains($0.name) }) { return false }
                }
                return true
            }
        }

        deinit {
            for agent in agents { agent.stop() }
            try? lan.close()
        }
    }

    @Test func threeHostsDiscoverEachOtherAndConverge() async throws {
        let cluster = try await Cluster(hosts: 3)
        let (a, b, c) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        try await cluster.start()
        try await cluster.waitConnected([a, b, c])
        #expect(try await a.status().discovery == "running")
        // Agents listen dual-stack; peers that came in over IPv4 are shown as IPv4.
        for peer in try await a.status().peers {
            #expect(peer.address.hasPrefix("198.18.0."), "peer address \(peer.address)")
        }

        try a.write("Documents/plan.txt", "found over mDNS")
        try a.write("Documents/old.txt", "to be deleted")
        try await waitForConvergence([a, b, c], "the files on every host") {
            $0["Documents/plan.txt"] != nil && $0["Documents/old.txt"] != nil
        }
        // Document management: a rename and a delete on host 1 are seen on hosts 2 and 3.
        try FileManager.default.moveItem(atPath: a.path("Documents/plan.txt"), toPath: a.path("Documents/final plan.txt"))
        try FileManager.default.removeItem(atPath: a.path("Documents/old.txt"))
        try await waitForConvergence([a, b, c], "the rename and delete everywhere") {
            $0["Documents/final plan.txt"] != nil && $0["Documents/plan.txt"] == nil && $0["Documents/old.txt"] == nil
        }
    }

    @Test func aHostOfAnotherAccountIsSeenButNeverConnected() async throws {
        let cluster = try await Cluster(hosts: 3, strangers: [3])
        let (a, b, stranger) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        try await cluster.start()
        try await cluster.waitConnected([a, b])
        let strangerID = try await stranger.status().device.id.rawValue
        try await waitUntil("host 1 to see the stranger's announcement") {
            let browse = try cluster.lan.host(1).output(["avahi-browse", "-rtp", "_ubiq._tcp"])
            return browse.contains(strangerID)
        }
        try a.write("Documents/private.txt", "account only")
        try await waitForConvergence([a, b], "the file on host 2") { $0["Documents/private.txt"] != nil }
        #expect(try await stranger.status().peers.isEmpty)
        #expect(try await a.status().peers.allSatisfy { $0.deviceID.rawValue != strangerID })
        #expect(!a.logText().contains("Refused a peer connection"))
        #expect(try stranger.digest()["Documents/private.txt"] == nil)
    }

    /// The seed's "one device offline" story: both edit while apart; after the link is back
    /// both hold the same current version and the same conflict version.
    @Test func oneDeviceOfflineEditsAndComesBack() async throws {
        let cluster = try await Cluster(hosts: 2)
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected([a, b])
        let path = "Documents/story.txt"
        try a.write(path, "chapter one")
        try await waitForConvergence([a, b], "the document on both") { _ in b.read(path) == "chapter one" }

        try cluster.lan.host(1).linkDown()
        try await waitUntil("the hosts to notice the cut", timeout: .seconds(30)) {
            let (sa, sb) = (try await a.status(), try await b.status())
            return sa.peers.allSatisfy { !$0.connected } && sb.peers.allSatisfy { !$0.connected }
        }
        let before = try await a.versions(path).current.id
        try a.write(path, "chapter one, edited offline on host 1")
        try await waitUntil("host 1 to record its edit") { try await a.versions(path).current.id != before }
        try b.write(path, "chapter one, edited on host 2")
        try cluster.lan.host(1).linkUp()

        try await waitUntil("both hosts to agree on the conflict", timeout: .seconds(60)) {
            let (va, vb) = (try await a.versions(path), try await b.versions(path))
            return va.current.id == vb.current.id && va.conflicts.map(\.id) == vb.conflicts.map(\.id)
                && va.conflicts.count == 1 && a.read(path) == b.read(path)
        }
        #expect(a.read(path) == "chapter one, edited on host 2")
    }

    /// Two devices offline at once, both editing; their links come back at the same time or
    /// one after the other. Every host ends with the same current and conflict versions.
    @Test(arguments: [true, false])
    func twoDevicesOfflineEditAndComeBack(together: Bool) async throws {
        let cluster = try await Cluster(hosts: 3)
        let (a, b, c) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        try await cluster.start()
        try await cluster.waitConnected([a, b, c])
        let path = "Documents/shared.txt"
        try c.write(path, "draft")
        try await waitForConvergence([a, b, c], "the draft everywhere") { _ in a.read(path) == "draft" && b.read(path) == "draft" }

        try cluster.lan.host(1).linkDown()
        try cluster.lan.host(2).linkDown()
        try await waitUntil("hosts 1 and 2 to be alone", timeout: .seconds(30)) {
            let (sa, sb) = (try await a.status(), try await b.status())
            return sa.peers.allSatisfy { !$0.connected } && sb.peers.allSatisfy { !$0.connected }
        }
        let before = try await a.versions(path).current.id
        try a.write(path, "draft, edited on host 1")
        try await waitUntil("host 1 to record its edit") { try await a.versions(path).current.id != before }
        try b.write(path, "draft, edited on host 2")
        try await waitUntil("host 2 to record its edit") { try await b.versions(path).current.id != before }

        try cluster.lan.host(1).linkUp()
        if !together {
            try await waitUntil("host 1's edit to reach host 3", timeout: .seconds(60)) { c.read(path) == "draft, edited on host 1" }
        }
        try cluster.lan.host(2).linkUp()
        try await waitUntil("all hosts to agree on the conflict", timeout: .seconds(90)) {
            let versions = [try await a.versions(path), try await b.versions(path), try await c.versions(path)]
            let contents = [a.read(path), b.read(path), c.read(path)]
            return Set(versions.map(\.current.id)).count == 1 && Set(versions.map { $0.conflicts.map(\.id) }).count == 1
                && versions[0].conflicts.count == 1 && Set(contents).count == 1
        }
        #expect(a.read(path) == "draft, edited on host 2")
    }

    /// A host restarted in the middle of a 256 MiB transfer resumes and completes.
    @Test func aHostRestartedMidTransferCompletes() async throws {
        let cluster = try await Cluster(hosts: 2)
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected([a, b])
        try a.write("Documents/video.bin", SeededBytes.data(256 << 20, seed: 7))
        let expected = try TreeDigest.fileHash(a.path("Documents/video.bin"))
        try await waitUntil("host 2 to be receiving", timeout: .seconds(120), every: .milliseconds(5)) {
            try await b.status().bytesReceived > 32 << 20
        }
        b.kill()
        let atKill = try TreeDigest.of(b.root)["Documents/video.bin"]
        #expect(atKill == nil || atKill == expected, "a partial file appeared at its final path")
        try await b.startAndWait()
        try await waitForConvergence([a, b], timeout: .seconds(180), "the transfer after the restart") {
            $0["Documents/video.bin"] == expected
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.root + "/.ubiq/tmp").isEmpty)
    }

    /// An agent that speaks only a newer protocol is refused with a reason both logs show;
    /// the others keep syncing.
    @Test func anAgentOfANewerProtocolIsRefusedOnTheLAN() async throws {
        let cluster = try await Cluster(hosts: 3)
        let (a, b, future) = (cluster.agents[0], cluster.agents[1], cluster.agents[2])
        future.environment["UBIQ_TEST_PROTOCOL_VERSIONS"] = "99"
        try await cluster.start()
        try await cluster.waitConnected([a, b])
        try await waitUntil("both logs to show the refusal", timeout: .seconds(60)) {
            a.logText().contains("no common protocol version") && future.logText().contains("no common protocol version")
        }
        try a.write("Documents/current.txt", "version 1 only")
        try await waitForConvergence([a, b], "hosts 1 and 2 to keep syncing") { $0["Documents/current.txt"] != nil }
        #expect(try future.digest()["Documents/current.txt"] == nil)
    }

    /// A peer that comes back on another port is connected again and syncs.
    @Test func aPeerThatMovesToAnotherPortIsFollowed() async throws {
        let cluster = try await Cluster(hosts: 2)
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected([a, b])
        b.stop()
        b.port = 22177
        try await b.startAndWait()
        try await cluster.waitConnected([a, b])
        try a.write("Documents/after-move.txt", "found on the new port")
        try await waitForConvergence([a, b], "the file on the moved host") { $0["Documents/after-move.txt"] != nil }
    }
}
