import ArgumentParser
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq ls [CONTAINER] [PATH]`: a folder of a container as the index sees it, or one item.
struct ListCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List the items in a container folder, or show one item.",
        discussion: """
            Examples:
              ubiq ls                                  the only container's top folder
              ubiq ls Documents/Reports                a folder of the only container
              ubiq ls ubiq.drive Documents/plan.txt    one file of container ubiq.drive
            CHANGED BY is the device that made the version listed.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: ArgumentHelp("The container, then a folder or file inside it; the container may be left out where the agent syncs only one, the path to list its top folder.",
                                 valueName: "container-or-path"))
    var arguments: [String] = []
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard arguments.count <= 2 else { throw ValidationError("give at most a container and a path") }
    }

    func run(with agent: UbiqAgentClient) async throws {
        let (container, path) = try await target(agent)
        if output.json {
            let params = try JSONValue(encoding: ItemsListParams(container: container, path: path))
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.itemsList.rawValue, params: params))
        }
        print(Self.render(try await agent.items(container: container, path: path)))
    }

    /// The container and path meant: the first argument is a container where it names one
    /// the agent syncs (or two are given), else a path in the agent's only container.
    private func target(_ agent: UbiqAgentClient) async throws -> (ContainerID, String?) {
        if arguments.count == 2 { return (try ContainerID(arguments[0]), arguments[1]) }
        let synced = try await agent.status().containers.map(\.id)
        if let first = arguments.first, let named = synced.first(where: { $0.rawValue == first }) { return (named, nil) }
        guard synced.count == 1 else {
            throw ValidationError(synced.isEmpty
                ? "the agent syncs no container"
                : "the agent syncs \(synced.count) containers (\(synced.map(\.rawValue).joined(separator: ", "))); name one first: ubiq ls CONTAINER [PATH]")
        }
        return (synced[0], arguments.first)
    }

    static let kindShown: [ItemKind: String] = [.directory: "dir", .symlink: "link", .file: "file", .package: "package"]

    static func render(_ items: [ItemEntry]) -> String {
        guard !items.isEmpty else { return "Empty." }
        var table = TextTable(
            header: ["KIND", "SIZE", "MODIFIED", "CHANGED BY", "VERSION", "NAME", "STATUS"],
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
            // A folder's x bits are how it is entered, not a mark of its own.
            if item.executable && item.kind == .file { status.append("executable") }
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
