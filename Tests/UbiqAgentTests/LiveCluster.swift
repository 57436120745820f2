import Foundation
import UbiqTestSupport

/// Agents of one account on loopback, each dialing the ones given, for live tests.
struct LiveCluster {
    let directory: TempDirectory
    let agents: [AgentProcess]

    /// `links[i]` lists the agents agent i dials; all share agent 0's account.
    init(_ names: [String], links: [[Int]]? = nil) async throws {
        directory = try TempDirectory(prefix: "ubiq-live")
        var agents: [AgentProcess] = []
        for name in names { agents.append(try AgentProcess(name: name, in: directory)) }
        let links = links ?? names.indices.map { $0 == 0 ? [] : [0] }
        for (i, agent) in agents.enumerated() { agent.peers = links[i].map { agents[$0].port } }
        try await agents[0].createAccount()
        for agent in agents.dropFirst() { try await agent.join(agents[0]) }
        self.agents = agents
    }

    func start() async throws {
        for agent in agents { try await agent.startAndWait() }
    }

    /// Waits until every pair of agents that should be linked sees the other connected.
    func waitConnected() async throws {
        try await waitUntil("agents to connect") {
            for agent in agents {
                let status = try await agent.status()
                let wanted = agents.filter { other in other !== agent && (agent.peers.contains(other.port) || other.peers.contains(agent.port)) }
                let connected = Set(status.peers.filter(\.connected).map(\.name))
                if !wanted.allSatisfy({ connected.contains($0.name) }) { return false }
            }
            return true
        }
    }

    /// Starts the agents with the second reaching the first only through a relay capped at
    /// `bytesPerSecond`, so a transfer between them lasts a known least time however fast the
    /// machine is; returns once they are connected. The caller closes the relay.
    func startThroughSlowLink(bytesPerSecond: Int) async throws -> TCPRelay {
        let (a, b) = (agents[0], agents[1])
        let link = try TCPRelay(to: a.port)
        link.limit(bytesPerSecond: bytesPerSecond)
        b.peers = [link.port]
        try await start()
        try await waitUntil("\(b.name) to connect to \(a.name) through the link") {
            try await b.status().peers.contains { $0.connected && $0.name == a.name }
        }
        return link
    }

    /// Makes concurrent edits of `path`, which the first two agents hold alike: the second
    /// stops, the first writes `first`, the second writes `second` and starts again. Returns
    /// once both hold the one conflict version.
    func makeConflict(_ path: String, first: String, second: String) async throws {
        let (a, b) = (agents[0], agents[1])
        let original = try await a.versions(path).current.id
        b.stop()
        try a.write(path, first)
        try await waitUntil("\(a.name) to record its edit") { try await a.versions(path).current.id != original }
        try b.write(path, second)
        try await b.startAndWait()
        try await waitUntil("both agents to hold the conflict", every: .milliseconds(10)) {
            let (va, vb) = (try await a.versions(path), try await b.versions(path))
            return va.conflicts.count == 1 && vb.conflicts.count == 1
        }
    }

    func stopAll() {
        for agent in agents { agent.stop() }
    }

    func logs() -> String {
        agents.map { "--- \($0.name) ---\n" + $0.logText().suffix(6000) }.joined(separator: "\n")
    }
}
