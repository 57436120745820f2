import ArgumentParser
import Foundation
import UbiqClient

/// `ubiq differences CONTAINER`: what a container's mode holds back: the peers' versions a
/// send-only container has not applied, the changes a receive-only container has not sent.
struct DifferencesCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "differences",
        abstract: "List the peers' changes a send-only container has not applied, or the changes a receive-only container has not sent.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let entries = try await agent.differences(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: entries)) }
        guard !entries.isEmpty else { return print("No differences: this device and its peers have the same versions.") }
        var table = TextTable(header: ["PATH", "HERE", "PEERS", "CHANGED BY"], alignments: [.left, .left, .left, .left])
        for entry in entries {
            let here = entry.changedHere ? (entry.localDeleted ? "deleted here" : "changed here") : entry.localVersion ?? "-"
            let peers = entry.peerDeleted ? "deleted" : entry.peerVersion ?? "-"
            table.append([entry.path, here, peers, entry.peerModifiedBy?.rawValue.shortDeviceID ?? "-"])
        }
        let next = entries.contains(where: \.changedHere)
            ? "Put the account's versions back (the changes go to the history) with: ubiq revert \(container)"
            : "Make the peers take this device's versions with: ubiq override \(container)"
        print(table.render() + "\n" + next)
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

/// `ubiq revert CONTAINER`: a receive-only container's own changes undone.
struct RevertCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert",
        abstract: "Put the account's versions back where a receive-only container was changed here; the changes go to the history.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.revertLocalChanges(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        print("Reverted \(result.reverted.count) path\(result.reverted.count == 1 ? "" : "s").")
        for failure in result.failed { print("Not reverted: \(failure.path): \(failure.reason)") }
        if !result.failed.isEmpty { throw ExitCode.failure }
    }
}
