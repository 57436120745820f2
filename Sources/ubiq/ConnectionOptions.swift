import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI

/// `--socket PATH`, shared by every command that talks to the agent.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The agent's control socket.", valueName: "path"))
    var socket: String?

    var socketPath: String { socket ?? ControlSocketPath.default() }
}

/// `--json`: print the agent's answer as JSON instead of a table.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the agent's answer as JSON, keys sorted.")
    var json = false
}

/// A subcommand that makes one round trip to the agent.
protocol AgentCommand: AsyncParsableCommand {
    var connection: ConnectionOptions { get }
    func run(with agent: UbiqAgentClient) async throws
}

extension AgentCommand {
    func run() async throws {
        let socketPath = connection.socketPath
        do {
            let agent = try await UbiqAgentClient.connect(socketPath: socketPath)
            do {
                try await run(with: agent)
                await agent.close()
            } catch {
                await agent.close()
                throw error
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            Terminal.printError(error)
            throw ExitCode.failure
        }
    }
}

/// Where messages for people go.
enum Terminal {
    static func printError(_ error: any Error) {
        let message: String = switch error {
        case let error as RPCError: error.message
        case let error as UbiqClientError: error.message
        default: "\(error)"
        }
        FileHandle.standardError.write(Data("ubiq: \(message)\n".utf8))
    }

    static func printJSON(_ value: JSONValue) {
        print(value.serialized(pretty: true))
    }
}
