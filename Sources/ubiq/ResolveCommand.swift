import ArgumentParser
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq resolve CONTAINER PATH --keep current|ID`: settle a conflict on every device.
struct ResolveCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve", abstract: "Keep one version of a conflicted document and discard the others everywhere.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Argument(help: "The document's path inside the container.")
    var path: String
    @Option(help: ArgumentHelp("'current' or a version id from 'ubiq versions'.", valueName: "current|id"))
    var keep: String
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let choice = VersionChoice(keep)
        if output.json {
            let params = try JSONValue(encoding: VersionsResolveParams(container: container, path: path, keep: choice))
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.versionsResolve.rawValue, params: params))
        }
        let result = try await agent.resolve(container: container, path: path, keep: choice)
        print("Kept \(result.kept) at \(result.path); the other versions are discarded on every device.")
    }
}
