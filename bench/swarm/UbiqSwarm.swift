import Foundation
import UbiqTestSupport

/// ubiq on the LAN: one `ubiqd` per host, all devices of one account, each given every
/// other host's address with `--peer` and discovery off, so that no host needs mDNS and the
/// setup matches Syncthing's static addresses. It notices the file with its own watcher.
final class UbiqSwarm: SwarmTool {
    let name = "ubiq"
    let program = "ubiqd"
    private(set) var version = "?"
    private var agents: [AgentProcess] = []

    func start(on lan: NamespaceLAN, in directory: TempDirectory) async throws {
        for host in lan.hosts {
            let agent = try AgentProcess(name: "h\(host.index)", in: directory, port: AgentProcess.defaultPort)
            agent.lanHost = host
            agent.extraArguments = lan.hosts.filter { $0.index != host.index }
                .flatMap { ["--peer", "\($0.address):\(AgentProcess.defaultPort)"] }
            try FileManager.default.createDirectory(atPath: agent.path("Documents"), withIntermediateDirectories: true)
            agents.append(agent)
        }
        try await agents[0].createAccount()
        for agent in agents.dropFirst() { try await agent.join(agents[0]) }
        for agent in agents { try await agent.startAndWait() }
        let others = agents.count - 1
        try await waitUntil("every agent to connect to every other and finish scanning", timeout: .seconds(120), every: .milliseconds(100)) {
            for agent in agents {
                let status = try await agent.status()
                let connected = Set(status.peers.filter(\.connected).map(\.deviceID))
                if connected.count < others || status.containers.contains(where: { $0.scanning || $0.needItems > 0 }) { return false }
            }
            return true
        }
        version = try await agents[0].status().agentVersion
    }

    func folder(_ index: Int) -> String { agents[index - 1].root }

    func placed(_ relativePath: String) async throws {}

    func stop() {
        for agent in agents { agent.stop() }
    }
}
