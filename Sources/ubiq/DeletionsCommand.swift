import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI

/// `ubiq deletions [list|confirm|restore] CONTAINER`: a person's decision on a mass deletion
/// the agent held back.
struct DeletionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deletions", abstract: "List, send or undo deletions held back because they would empty much of a container.",
        discussion: """
            Examples:
              ubiq deletions TEAMID.com.example.notes           what is held, and since when
              ubiq deletions confirm TEAMID.com.example.notes   the deletions were meant: send them
              ubiq deletions restore TEAMID.com.example.notes   they were not: put the files back here
            """,
        subcommands: [DeletionsListCommand.self, DeletionsConfirmCommand.self, DeletionsRestoreCommand.self],
        defaultSubcommand: DeletionsListCommand.self)
}

struct DeletionsListCommand: AgentCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the deletions held back.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.heldDeletions(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        guard let since = result.since else { return print("No deletions held in \(container.rawValue).") }
        let when = Date(timeIntervalSince1970: Double(since) / 1000).formatted(date: .abbreviated, time: .standard)
        print("\(result.count) files deleted here since \(when) are held, not sent:")
        for path in result.paths { print("  \(path)") }
        print("`ubiq deletions confirm \(container.rawValue)` sends them; `ubiq deletions restore \(container.rawValue)` puts the files back.")
    }
}

struct DeletionsConfirmCommand: AgentCommand {
    static let configuration = CommandConfiguration(commandName: "confirm", abstract: "Send the held deletions to the other devices.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.confirmDeletions(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        print((result.confirmed ?? 0) == 0 ? "No deletions were held." : "\(result.confirmed ?? 0) deletions sent to the other devices.")
    }
}

struct DeletionsRestoreCommand: AgentCommand {
    static let configuration = CommandConfiguration(commandName: "restore", abstract: "Put the files of the held deletions back here.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.restoreDeletions(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        let (restoring, newer, gone) = (result.restoring ?? 0, result.newer ?? 0, result.gone ?? [])
        if restoring > 0 { print("\(restoring) files and folders are being put back, from this device or the others.") }
        if newer > 0 { print("\(newer) files were changed on other devices since; their newer versions come back.") }
        if restoring == 0, newer == 0, gone.isEmpty { print("Nothing to restore.") }
        guard !gone.isEmpty else { return }
        print("\(gone.count) files were on no other device as they were here (deleted or changed here before they were sent); "
              + "nothing can bring them back, and their deletions were sent:")
        for path in gone { print("  \(path)") }
    }
}
