import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq versions CONTAINER PATH [--show ID | --diff ID]`: a document's current version and
/// its conflict versions, or one version's content, or how a conflict version differs.
struct VersionsCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions", abstract: "Show a document's current version and its unresolved conflicts, or read one.",
        discussion: """
            Examples:
              ubiq versions ubiq.drive Documents/plan.txt                    the versions and their IDs
              ubiq versions ubiq.drive Documents/plan.txt --show 42FASN5M-3  that version's content
              ubiq versions ubiq.drive Documents/plan.txt --diff 42FASN5M-3  current against it, as diff -u
            Nothing in the folder changes; a version not kept here is read from a connected peer.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Argument(help: "The document's path inside the container.")
    var path: String
    @Option(help: ArgumentHelp("Print this version's content (an ID from the list, or current).", valueName: "id"))
    var show: String?
    @Option(help: ArgumentHelp("Show how this version differs from the current one, as `diff -u` does.", valueName: "id"))
    var diff: String?
    @OptionGroup var output: OutputOptions

    /// The most read of each version: `versions.read`'s own limit.
    static let readLimit = 4 << 20

    func validate() throws {
        if show != nil && diff != nil { throw ValidationError("give --show or --diff, not both") }
    }

    func run(with agent: UbiqAgentClient) async throws {
        if let show { return try await printContent(of: VersionChoice(show), with: agent) }
        if let diff { return try await printDiff(against: VersionChoice(diff), with: agent) }
        if output.json {
            let params = try JSONValue(encoding: VersionsListParams(container: container, path: path))
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.versionsList.rawValue, params: params))
        }
        print(Self.render(try await agent.versions(container: container, path: path), container: container, path: path))
    }

    private func printContent(of version: VersionChoice, with agent: UbiqAgentClient) async throws {
        let read = try await agent.readVersion(container, path: path, version: version, maxBytes: Self.readLimit)
        if output.json { return Terminal.printJSON(try JSONValue(encoding: read)) }
        FileHandle.standardOutput.write(read.data)
        if read.truncated {
            FileHandle.standardError.write(Data("ubiq: only the first \(ByteCount.format(Int64(read.data.count))) of \(ByteCount.format(read.size)) shown; `ubiq resolve --keep-both` saves the whole version as a file\n".utf8))
        }
    }

    private func printDiff(against version: VersionChoice, with agent: UbiqAgentClient) async throws {
        let current = try await agent.readVersion(container, path: path, version: .current, maxBytes: Self.readLimit)
        let other = try await agent.readVersion(container, path: path, version: version, maxBytes: Self.readLimit)
        if current.truncated || other.truncated {
            FileHandle.standardError.write(Data("ubiq: the versions are larger than \(ByteCount.format(Int64(Self.readLimit))); their starts are compared\n".utf8))
        }
        print(TextDiff.unified(current.data, other.data,
                                   labels: ("\(path) (current, \(current.version))", "\(path) (\(other.version))")), terminator: "")
    }

    static func render(_ versions: VersionsList, container: ContainerID, path: String) -> String {
        var table = TextTable(
            header: ["", "ID", "SIZE", "MODIFIED", "CHANGED BY", "VERSION"], alignments: [.left, .left, .right, .left, .left, .left])
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
