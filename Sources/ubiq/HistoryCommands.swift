import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq history CONTAINER [PATH] [--prune]`: the versions this device and its connected
/// peers replaced or deleted.
struct HistoryCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "List the versions kept of a file, or of everything under a folder.",
        discussion: """
            Examples:
              ubiq history TEAMID.com.example.notes Documents/todo.txt   the versions kept of one file
              ubiq history TEAMID.com.example.notes Documents            of everything under a folder
            Restore one with `ubiq restore CONTAINER PATH --version ID`.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Argument(help: "A file or folder inside the container (default: all of it).")
    var path: String?
    @Flag(help: "Apply the retention rules now, before listing, instead of at the next periodic pass.")
    var prune = false
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        if prune {
            let pruned = try await agent.pruneHistory(container: container)
            if output.json { return Terminal.printJSON(try JSONValue(encoding: pruned)) }
            print("Pruned \(pruned.removed) versions (\(ByteCount.format(pruned.freedBytes))); "
                + "\(pruned.count) kept (\(ByteCount.format(pruned.bytes))).")
        }
        if output.json {
            let params = try JSONValue(encoding: HistoryListParams(container: container, path: path))
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.historyList.rawValue, params: params))
        }
        print(Self.render(try await agent.history(container: container, path: path), container: container))
    }

    static func render(_ history: HistoryList, container: ContainerID) -> String {
        guard !history.versions.isEmpty else { return "No kept versions here (\(history.count) in the container)." }
        var table = TextTable(header: ["ID", "PATH", "SIZE", "MODIFIED", "KEPT", "WHY", "REPLACED BY", "KEPT ON"],
                              alignments: [.left, .left, .right, .left, .left, .left, .left, .left])
        for version in history.versions {
            table.append([version.id, version.path, ByteCount.format(version.size), DateDisplay.format(version.mtime),
                          DateDisplay.format(version.keptAt), version.reason, version.by.rawValue.shortDeviceID,
                          version.devices.map(\.rawValue.shortDeviceID).joined(separator: ",")])
        }
        let peers = history.peersAsked.isEmpty ? "no peer connected" : "\(history.peersAsked.count) connected peers asked"
        return table.render() + "\nKept here in the container: \(history.count) versions, \(ByteCount.format(history.bytes)); \(peers); "
            + "restore one with: ubiq restore \(container) PATH --version ID"
    }
}

/// `ubiq trash CONTAINER [PATH]`: deleted files, each with its last version.
struct TrashCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash", abstract: "List deleted files that can be restored.",
        discussion: """
            Examples:
              ubiq trash TEAMID.com.example.notes                  every deleted file kept
              ubiq trash TEAMID.com.example.notes Documents/old    those that were under a folder
              ubiq restore TEAMID.com.example.notes Documents/old/plan.txt   bring one back
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Argument(help: "A folder inside the container (default: all of it).")
    var path: String?
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        if output.json {
            let params = try JSONValue(encoding: HistoryListParams(container: container, path: path))
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.trashList.rawValue, params: params))
        }
        let entries = try await agent.trash(container: container, path: path)
        guard !entries.isEmpty else { return print("Nothing deleted is kept here.") }
        var table = TextTable(header: ["PATH", "SIZE", "DELETED", "DELETED BY", "VERSION"], alignments: [.left, .right, .left, .left, .left])
        for entry in entries {
            table.append([entry.path, ByteCount.format(entry.size), DateDisplay.format(entry.deletedAt), entry.deletedBy.rawValue.shortDeviceID,
                          entry.version])
        }
        print(table.render() + "\nRestore one with: ubiq restore \(container) PATH --version VERSION")
    }
}

/// `ubiq restore CONTAINER PATH --version ID | --at TIME`: a kept version made current
/// again, or a folder put back as it was at a time.
struct RestoreCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Make a kept version of a file current again, or put a folder back as it was, on every device.",
        discussion: """
            Examples:
              ubiq restore TEAMID.com.example.notes Documents/todo.txt               the newest kept version
              ubiq restore TEAMID.com.example.notes Documents/todo.txt --version h3  one from `ubiq history`
              ubiq restore TEAMID.com.example.notes Documents --at 2h               the folder as it was 2 hours ago
            A restore is a new change: what it replaces is kept in the history in its turn.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Argument(help: "The file's (or, with --at, the folder's) path inside the container.")
    var path: String
    @Option(help: "The kept version's id, from `ubiq history` or `ubiq trash` (default: the newest kept of PATH).")
    var version: String?
    @Option(help: "Put everything under PATH back as it was at this time: 2026-11-26T08:00:00Z, or 90m, 2h, 3d ago.",
            transform: { try RestoreTime.parse($0) })
    var at: Date?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard version == nil || at == nil else { throw ValidationError("give --version ID or --at TIME, not both") }
    }

    func run(with agent: UbiqAgentClient) async throws {
        if let at {
            let result = try await agent.restoreFolder(container: container, path: path, at: at)
            if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
            var lines = ["Put \(path) back as it was at \(DateDisplay.format(at)): \(result.restored.count) restored, "
                + "\(result.removed.count) created since moved to the history, \(result.unchanged) unchanged."]
            lines += result.failed.map { "  not restored: \($0.path): \($0.reason)" }
            return print(lines.joined(separator: "\n"))
        }
        let version: String
        if let chosen = self.version { version = chosen } else { version = try await newestKept(by: agent) }
        let result = try await agent.restore(container: container, path: path, version: version)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
        print("Restored \(result.path) (\(ByteCount.format(result.size))) from \(result.restored); it is now version \(result.version) on every device.")
    }

    /// The id of the newest version of the file kept here or on a connected peer (the history
    /// lists newest first), as a person restoring a deleted file means.
    private func newestKept(by agent: UbiqAgentClient) async throws -> String {
        let versions = try await agent.history(container: container, path: path).versions
        guard let newest = versions.first(where: { $0.path == path }) else {
            throw ValidationError("no version of \(path) is kept here or on a connected peer; `ubiq history \(container.rawValue)` lists what is")
        }
        return newest.id
    }
}
