import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq query CONTAINER`: a metadata query from the shell, once or live with `--watch`.
struct QueryCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Find the files of a container by scope and name, sorted; --watch follows changes.",
        discussion: """
            Lists files and symbolic links, not folders. --name takes a pattern for the file name: * matches any \
            run of characters, ? one character, \\ makes the next one literal; case counts unless --ignore-case. \
            With --watch and --json, prints one JSON object per line: the query's first result, then each update.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Option(help: ArgumentHelp("Where to look: documents (under Documents/), data (the rest) or both.", valueName: "scope"))
    var scope: QueryScope = .documents
    @Option(help: ArgumentHelp("A pattern the file name must match, such as '*.txt'.", valueName: "glob"))
    var name: String?
    @Flag(name: [.customShort("i"), .long], help: "Match --name without regard to case.")
    var ignoreCase = false
    @Option(help: ArgumentHelp("Sort by name, modified or size.", valueName: "key"))
    var sort: QuerySortKey = .name
    @Flag(help: "Sort in descending order.")
    var descending = false
    @Flag(help: "Keep running and print changes as they happen, until interrupted.")
    var watch = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let name {
            do { _ = try NameGlob(name, ignoreCase: ignoreCase) } catch { throw ValidationError(error.message) }
        }
    }

    func run(with agent: UbiqAgentClient) async throws {
        let query = MetadataQuery(container: container, scope: scope, glob: name, ignoreCase: ignoreCase, sort: sort,
                                  descending: descending)
        let items = try await query.start(on: agent)
        let id = await query.queryID ?? ""
        if output.json {
            let result = try JSONValue(encoding: QueryStartResult(query: id, items: items))
            if watch { Self.emit(result.serialized()) } else { Terminal.printJSON(result) }
        } else {
            Self.emit(Self.render(items))
        }
        guard watch else { return await query.stop() }
        for await update in query.updates {
            if output.json {
                let notice = QueryUpdateNotice(query: id, added: update.added, changed: update.changed, removed: update.removed)
                Self.emit(try JSONValue(encoding: notice).serialized())
            } else {
                Self.emit(Self.describe(update))
            }
        }
        throw UbiqClientError(.connectionClosed, "the agent closed the connection; the query ended")
    }

    /// Prints at once, so a pipe sees each update as it comes.
    private static func emit(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func render(_ items: [QueryItem]) -> String {
        guard !items.isEmpty else { return "No items match." }
        var table = TextTable(
            header: ["KIND", "SIZE", "MODIFIED", "CHANGED BY", "VERSION", "PATH", "STATUS"],
            alignments: [.left, .right, .left, .left, .left, .left, .left])
        for item in items {
            table.append([item.kind == .symlink ? "link" : "file", ByteCount.format(item.size), DateDisplay.format(item.modified),
                          item.modifiedBy.rawValue.shortDeviceID, item.version, item.path, status(item)])
        }
        return table.render() + "\n\(items.count) item\(items.count == 1 ? "" : "s")."
    }

    /// One line per item: `+` added, `~` changed, `-` removed.
    static func describe(_ update: QueryUpdate) -> String {
        func line(_ mark: String, _ item: QueryItem) -> String {
            var text = "\(mark) \(item.path)  \(ByteCount.format(item.size))  \(DateDisplay.format(item.modified))"
                + "  \(item.modifiedBy.rawValue.shortDeviceID)"
            let status = status(item)
            if !status.isEmpty { text += "  (\(status))" }
            return text
        }
        return (update.removed.map { "- \($0)" } + update.added.map { line("+", $0) } + update.changed.map { line("~", $0) })
            .joined(separator: "\n")
    }

    private static func status(_ item: QueryItem) -> String {
        var status: [String] = []
        if item.conflicts > 0 { status.append(item.conflicts == 1 ? "1 conflict" : "\(item.conflicts) conflicts") }
        if !item.downloaded {
            status.append(item.downloadProgress.map { "downloading \(Int($0 * 100))%" } ?? "not downloaded")
        }
        if item.uploaded == false { status.append("not uploaded") }
        return status.joined(separator: ", ")
    }
}

extension QueryScope: ExpressibleByArgument {}
extension QuerySortKey: ExpressibleByArgument {}
