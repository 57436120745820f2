import ArgumentParser
import Foundation
import UbiqClient

/// `ubiq rescan CONTAINER`: compare the container's folder with the index now, for changes
/// the watcher cannot see (a network mount, a file system without inotify).
struct RescanCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "rescan", abstract: "Look for changes in a container's folder now and sync them.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let result = try await agent.rescan(container)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        print("\(result.items) entries scanned in \(String(format: "%.3f", result.seconds)) s, \(result.changed) changed")
    }
}
