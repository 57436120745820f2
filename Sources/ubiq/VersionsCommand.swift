import ArgumentParser
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq versions CONTAINER PATH`: a document's current version and its conflict versions.
struct VersionsCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions", abstract: "Show a document's current version and its unresolved conflicts.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Argument(help: "The document's path inside the container.")
    var path: String
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        if output.json {
            let params = try JSONValue(encoding: VersionsListParams(container: container, path: path))
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.versionsList.rawValue, params: params))
        }
        print(Self.render(try await agent.versions(container: container, path: path), container: container, path: path))
    }

    static func render(_ versions: VersionsList, container: ContainerID, path: String) -> String {
        var table = TextTable(
            header: ["", "ID", "SIZE", "MODIFIED", "BY", "VERSION"], alignments: [.left, .left, .right, .left, .left, .left])
        for entry in [versions.current] + versions.conflicts {
            table.append([entry.current ? "*" : "", entry.id, ByteCount.format(entry.size), DateDisplay.format(entry.mtime),
                          entry.modifiedBy.rawValue.shortDeviceID, entry.version])
        }
        let count = versions.conflicts.count
        let footer = count == 0
            ? "No conflicts."
            : "\(count) unresolved conflict\(count == 1 ? "" : "s"); keep one with: ubiq resolve \(container) \(path) --keep current|ID"
                + "\n(or keep a conflict version too, under a new name: --keep-both NEWPATH)"
        return table.render() + "\n" + footer
    }
}
