import ArgumentParser
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq resolve CONTAINER PATH --keep current|ID` settles a conflict on every device;
/// `--keep-both NEWPATH [--version ID]` first saves a conflict version as a new document,
/// then keeps the current version at PATH.
struct ResolveCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve", abstract: "Keep one version of a conflicted document; the others move to the history, everywhere.",
        discussion: """
            --keep current|ID keeps that version at PATH. --keep-both NEWPATH saves a conflict version \
            (the one given with --version, or the only one) as the new document NEWPATH, then keeps the \
            current version at PATH; NEWPATH must not exist.

            Examples:
              ubiq versions ubiq.drive Documents/plan.txt                  list the versions and their IDs
              ubiq versions ubiq.drive Documents/plan.txt --diff 42FASN5M-3  what the conflict version changes
              ubiq resolve ubiq.drive Documents/plan.txt --keep 42FASN5M-3
              ubiq resolve ubiq.drive Documents/plan.txt --keep-both Documents/plan-laptop.txt
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container, e.g. TEAMID.com.example.app.", transform: { try ContainerID($0) })
    var container: ContainerID
    @Argument(help: "The document's path inside the container.")
    var path: String
    @Option(help: ArgumentHelp("'current' or a version id from 'ubiq versions'.", valueName: "current|id"))
    var keep: String?
    @Option(name: .customLong("keep-both"),
            help: ArgumentHelp("Save a conflict version as this new document, then keep the current one at PATH.", valueName: "newpath"))
    var keepBoth: String?
    @Option(help: ArgumentHelp("With --keep-both: the conflict version to save (needed when there are several).", valueName: "id"))
    var version: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        switch (keep, keepBoth) {
        case (nil, nil): throw ValidationError("Give --keep current|ID or --keep-both NEWPATH.")
        case (.some, .some): throw ValidationError("Give either --keep or --keep-both, not both.")
        default: break
        }
        if version != nil && keepBoth == nil { throw ValidationError("--version goes with --keep-both.") }
    }

    func run(with agent: UbiqAgentClient) async throws {
        if let newPath = keepBoth { return try await keepBoth(newPath, with: agent) }
        let choice = VersionChoice(keep ?? "current")
        if output.json {
            let params = try JSONValue(encoding: VersionsResolveParams(container: container, path: path, keep: choice))
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.versionsResolve.rawValue, params: params))
        }
        let result = try await agent.resolve(container: container, path: path, keep: choice)
        let chosen = result.chosen ?? result.kept
        let now = chosen == result.kept ? "" : " (current now, as version \(result.kept))"
        print("Kept \(chosen) at \(result.path)\(now); on every device the other versions moved to the history, where `ubiq history \(container) \(result.path)` lists them.")
    }

    private func keepBoth(_ newPath: String, with agent: UbiqAgentClient) async throws {
        let conflicts = try await agent.versions(container: container, path: path).conflicts
        let chosen: VersionEntry
        if let version {
            guard let entry = conflicts.first(where: { $0.id == version }) else {
                throw RPCError(.conflictNotFound, "'\(path)' has no conflict version '\(version)'; see `ubiq versions \(container) \(path)`")
            }
            chosen = entry
        } else {
            guard conflicts.count == 1 else {
                throw RPCError(conflicts.isEmpty ? .conflictNotFound : .invalidParams, conflicts.isEmpty
                    ? "'\(path)' has no conflict versions; nothing to keep"
                    : "'\(path)' has \(conflicts.count) conflict versions; choose one with --version ID (see `ubiq versions \(container) \(path)`)")
            }
            chosen = conflicts[0]
        }
        let saved = try await agent.saveVersion(container: container, path: path, version: .version(chosen.id), to: newPath)
        let resolved = try await agent.resolve(container: container, path: path, keep: .current)
        if output.json {
            let (savedJSON, resolvedJSON) = (try JSONValue(encoding: saved), try JSONValue(encoding: resolved))
            return Terminal.printJSON(["saved": savedJSON, "resolved": resolvedJSON])
        }
        print("Saved version \(saved.version) of \(path) as \(saved.path) (\(ByteCount.format(saved.size))).")
        print("Kept \(resolved.kept) at \(resolved.path)" + (conflicts.count > 1
            ? "; on every device the \(conflicts.count - 1) other conflict version\(conflicts.count == 2 ? "" : "s") moved to the history (`ubiq history`)."
            : "; the conflict is resolved on every device."))
    }
}
