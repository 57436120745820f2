import ArgumentParser
import UbiqClient

/// `--socket PATH` and `--container ID`, shared by every `ubiq-todo` command.
struct TodoOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The agent's control socket.", valueName: "path"))
    var socket: String?
    @Option(help: ArgumentHelp("The container holding the list (default: the only container the agent syncs).", valueName: "id"),
            transform: { try ContainerID($0) })
    var container: ContainerID?

    /// Connects to the agent, runs `body` on the list and closes the connection.
    func withList<T: Sendable>(_ body: (TodoStore) async throws -> T) async throws -> T {
        let client = try await UbiqAgentClient.connect(socketPath: socket ?? ControlSocketPath.default())
        do {
            let result = try await body(TodoStore(client: client, container: try await chosenContainer(client)))
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    private func chosenContainer(_ client: UbiqAgentClient) async throws -> ContainerID {
        if let container { return container }
        let synced = try await client.status().containers.map(\.id)
        switch synced.count {
        case 0: throw TodoError.noContainer
        case 1: return synced[0]
        default: throw TodoError.severalContainers(synced.map(\.rawValue))
        }
    }
}
