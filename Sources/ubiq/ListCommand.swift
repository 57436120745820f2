import ArgumentParser
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq ls CONTAINER [PATH]`: a folder of a container as the index sees it.
struct ListCommand: AgentCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List the items in a container folder.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Argument(help: "A folder inside the container; the root if left out.")
    var path: String?
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        if output.json {
            let params = try JSONValue(encoding: ItemsListParams(container: container, path: path))
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.itemsList.rawValue, params: params))
        }
        print(Self.render(try await agent.items(container: container, path: path)))
    }

    static let kindShown: [ItemKind: String] = [.directory: "dir", .symlink: "link", .file: "file", .package: "package"]

    static func render(_ items: [ItemEntry]) -> String {
        guard !items.isEmpty else { return "Empty." }
        var table = TextTable(
            header: ["KIND", "SIZE", "MODIFIED", "BY", "VERSION", "NAME", "STATUS"],
            alignments: [.left, .right, .left, .left, .left, .left, .left])
        for item in items.sorted(by: { $0.path < $1.path }) {
            let name = String(item.path.split(separator: "/").last ?? Substring(item.path))
            let shown = switch item.kind {
            case .directory: name + "/"
            case .symlink: name + " -> " + (item.symlinkTarget ?? "?")
            case .file: name
            // A folder that is one document: marked, and never listed inside.
            case .package: name + " [package]"
            }
            var status: [String] = []
            if item.executable { status.append("executable") }
            // Permissions other than a new file's or folder's, such as a private 0600.
            if let permissions = item.permissions, permissions != (item.kind == .directory || item.kind == .package ? "0755" : "0644"),
               !(item.kind == .file && permissions == "0755") {
                status.append("mode " + permissions)
            }
            if item.conflicts > 0 { status.append(item.conflicts == 1 ? "1 conflict" : "\(item.conflicts) conflicts") }
            if !item.downloaded { status.append("not downloaded") }
            if let line = item.ignoredBy { status.append("ignored (\(line.source) line \(line.line): \(line.pattern))") }
            table.append([
                Self.kindShown[item.kind] ?? item.kind.rawValue,
                item.kind == .directory ? "-" : ByteCount.format(item.size),
                DateDisplay.format(item.mtime), item.modifiedBy.rawValue.shortDeviceID, item.version, shown,
                status.joined(separator: ", "),
            ])
        }
        return table.render()
    }
}
