import ArgumentParser
import UbiqClient
import UbiqControlAPI

/// `ubiq peers`: the other devices of the account this agent knows.
struct PeersCommand: AgentCommand {
    static let configuration = CommandConfiguration(commandName: "peers", abstract: "List known peer devices.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        if output.json {
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.peersList.rawValue))
        }
        print(Self.render(try await agent.peers()))
    }

    static func render(_ peers: [PeerStatus]) -> String {
        guard !peers.isEmpty else { return "No peers known yet." }
        var table = TextTable(
            header: ["PEER", "NAME", "ADDRESS", "SENT", "RECEIVED", "STATE"],
            alignments: [.left, .left, .left, .right, .right, .left])
        for peer in peers {
            let state: String
            if peer.connected {
                state = "connected" + (peer.since.map { " since \(DateDisplay.format($0))" } ?? "")
            } else {
                state = "offline" + (peer.lastError.map { ": \($0)" } ?? "")
            }
            table.append([peer.deviceID.rawValue, peer.name, peer.address, ByteCount.format(peer.bytesSent),
                          ByteCount.format(peer.bytesReceived), state])
        }
        return table.render()
    }
}
