import ArgumentParser
import Foundation
import UbiqClient

/// `ubiq differences CONTAINER`: the peers' versions a send-only container has not applied.
struct DifferencesCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "differences", abstract: "List the peers' changes a send-only container has not applied.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let entries = try await agent.differences(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: entries)) }
        guard !entries.isEmpty else { return print("No differences: the peers have this device's versions.") }
        var table = TextTable(header: ["PATH", "HERE", "PEER", "BY"], alignments: [.left, .left, .left, .left])
        for entry in entries {
            table.append([entry.path, entry.localVersion ?? "-", entry.peerDeleted ? "deleted" : entry.peerVersion,
                          entry.peerModifiedBy.rawValue.shortDeviceID])
        }
        print(table.render() + "\nMake the peers take this device's versions with: ubiq override \(container)")
    }
}

/// `ubiq override CONTAINER`: a send-only container's versions made the peers'.
struct OverrideCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "override", abstract: "Make the peers of a send-only container take this device's versions.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.overrideDifferences(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        print("The peers take this device's version of \(result.overridden.count) path\(result.overridden.count == 1 ? "" : "s").")
    }
}
