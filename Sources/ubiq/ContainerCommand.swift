import ArgumentParser
import Foundation
import UbiqClient

/// `ubiq container reset CONTAINER`: a person says the folder at the container's path is the
/// one to sync, as it is now, after the agent found it missing or not its own.
struct ContainerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "container", abstract: "Act on a container's folder.", subcommands: [ContainerResetCommand.self])
}

struct ContainerResetCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Sync a container's folder as it is now, with a new marker.",
        discussion: """
            For a container that `ubiq status` shows as unavailable because its folder is missing, \
            empty or not its own, when you mean the folder that is there now (a new disk, a folder \
            put back from a copy). A folder that is not there is made. What the folder lacks is \
            fetched again from the other devices; nothing is deleted on them.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.resetFolder(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        let fetched = result.refetching == 0 ? "nothing was missing" : "\(result.refetching) item\(result.refetching == 1 ? "" : "s") it lacked are being fetched from the other devices"
        print("\(container.rawValue): the folder is synced as it is now (marker \(result.folder.prefix(8))…); \(fetched)")
    }
}
