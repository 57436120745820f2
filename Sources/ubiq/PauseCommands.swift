import ArgumentParser
import Foundation
import UbiqClient

/// `ubiq pause [CONTAINER]`: stop syncing a container, or everything, until `ubiq resume`.
struct PauseCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Stop syncing a container, or (without one) everything, until `ubiq resume`; kept across restarts.",
        discussion: """
            Examples:
              ubiq pause                             every container
              ubiq pause TEAMID.com.example.photos   one container
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container (default: the whole agent).", transform: { try ContainerID($0) }) var container: ContainerID?
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.pause(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        print(PauseCommand.describe(result))
    }

    static func describe(_ result: PauseResult) -> String {
        let containers = result.pausedContainers.map(\.rawValue).joined(separator: ", ")
        return switch (result.agentPaused, result.pausedContainers.isEmpty) {
        case (true, _): "All syncing is paused; local changes are still recorded."
        case (false, false): "Paused: \(containers). Local changes there are still recorded."
        case (false, true): "Syncing."
        }
    }
}

/// `ubiq resume [CONTAINER]`: sync again what `ubiq pause` paused.
struct ResumeCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Sync again a container, or (without one) everything, that `ubiq pause` paused.",
        discussion: """
            Examples:
              ubiq resume                             the whole agent
              ubiq resume TEAMID.com.example.photos   one container
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container (default: the whole agent).", transform: { try ContainerID($0) }) var container: ContainerID?
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.resume(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        print(PauseCommand.describe(result))
    }
}
