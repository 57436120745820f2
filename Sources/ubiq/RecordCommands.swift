import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq records save|fetch|watch --store NAME`: the record stores of a container on the
/// local agent.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records", abstract: "Save, fetch and watch the records of a record store.",
        subcommands: [Save.self, Fetch.self, Watch.self, RemoveStore.self])

    struct Save: AgentCommand {
        static let configuration = CommandConfiguration(
            commandName: "save", abstract: "Save changes to records as one transaction, all or nothing.",
            discussion: """
                Give the changes as the JSON array `changes` of records.save, e.g. \
                '[{"op":"insert","entity":"Task","id":"t-1","attributes":{"title":"milk"}}]' (or one such object), \
                from the argument, a file (--file PATH) or standard input (-). Or give one change in words:
                  insert Task t-1 title=milk done=false list=@List/l-1
                  update Task t-1 done=true note=
                  delete Task t-1
                A value is read as `ubiq kv set` reads it: JSON (13, true, "text", [1,2], {"$date":"2026-01-31T09:15:02Z"}), \
                else the text as a string; @ENTITY/ID is a reference to another record (write '"@text"' for a text starting \
                with @); nothing after = (note=) removes the attribute, in an update only.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: RecordStoreOptions
        @Argument(help: ArgumentHelp(
            "The changes as JSON, - to read them from standard input, or one change: insert|update|delete ENTITY ID [NAME=VALUE ...].",
            valueName: "changes"))
        var words: [String] = []
        @Option(help: ArgumentHelp("Read the changes (JSON) from this file.", valueName: "path")) var file: String?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            switch (words.isEmpty, file) {
            case (true, nil): throw ValidationError("give the changes as JSON, - to read them from standard input, --file PATH, or one change in words")
            case (false, .some): throw ValidationError("give the changes or --file, not both")
            default: break
            }
        }

        func run(with agent: UbiqAgentClient) async throws {
            let changes = try readChanges()
            let container = try await options.container(of: agent)
            let params = try JSONValue(encoding: RecordsSaveParams(container: container, store: options.store, changes: changes))
            let raw = try await agent.connection.call(ControlMethod.recordsSave.rawValue, params: params)
            if output.json { return Terminal.printJSON(raw) }
            let saved = try raw.decode(RecordsSaveResult.self)
            print("Saved transaction \(saved.transaction) (\(changes.count) change\(changes.count == 1 ? "" : "s")) in \(saved.log).")
        }

        private func readChanges() throws -> [RecordChangeParams] {
            if let file {
                guard let contents = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
                return try RecordChangeInput.changes(json: String(decoding: contents, as: UTF8.self), source: file)
            }
            if let first = words.first, RecordChangeInput.operations.contains(first) {
                return [try RecordChangeInput.change(words: words)]
            }
            guard words.count == 1 else {
                throw ValidationError("'\(words[0])' is no change: start with insert, update or delete, or give the changes as one JSON argument")
            }
            if words[0] == "-" {
                let input = FileHandle.standardInput.readDataToEndOfFile()
                return try RecordChangeInput.changes(json: String(decoding: input, as: UTF8.self), source: "standard input")
            }
            return try RecordChangeInput.changes(json: words[0], source: "the argument")
        }
    }

    struct Fetch: AgentCommand {
        static let configuration = CommandConfiguration(
            commandName: "fetch", abstract: "List the records of an entity that match, sorted.",
            discussion: """
                --where takes the condition of records.fetch as JSON: {"attribute":"done","op":"==","value":false}, \
                {"attribute":"title","contains":"milk"}, {"all":[...]} or {"any":[...]}. --sort names an attribute, \
                -NAME for descending; repeat it (or separate names with commas) for ties. Records are sorted by ID last.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: RecordStoreOptions
        @Argument(help: "The entity, e.g. Task.") var entity: String
        @Option(name: .customLong("where"), help: ArgumentHelp("Only the records that match this condition (JSON).", valueName: "json"))
        var condition: String?
        @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("Sort by this attribute; -NAME sorts descending.", valueName: "[-]name"))
        var sort: [String] = []
        @Option(help: "At most this many records.") var limit: Int?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit is \(limit); give 0 or more") }
            if sort.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }).contains(where: { $0.isEmpty || $0 == "-" }) {
                throw ValidationError("--sort takes attribute names, each with a leading - to sort descending")
            }
        }

        func run(with agent: UbiqAgentClient) async throws {
            var predicate: JSONValue?
            if let condition {
                do { predicate = try JSONValue(parsing: condition) } catch {
                    throw ValidationError("--where is not JSON (\(error)); write e.g. {\"attribute\":\"done\",\"op\":\"==\",\"value\":false}")
                }
            }
            let orders = sort.flatMap { $0.split(separator: ",") }.map { name in
                name.hasPrefix("-") ? RecordSortParams(attribute: String(name.dropFirst()), descending: true) : RecordSortParams(attribute: String(name))
            }
            let container = try await options.container(of: agent)
            let params = try JSONValue(encoding: RecordsFetchParams(container: container, store: options.store, entity: entity, where: predicate,
                                                                     sort: orders.isEmpty ? nil : orders, limit: limit))
            let raw = try await agent.connection.call(ControlMethod.recordsFetch.rawValue, params: params)
            if output.json { return Terminal.printJSON(raw) }
            let records = try raw.decode(RecordsFetchResult.self).records
            print(records.isEmpty ? "No \(entity) records in \(options.store)\(condition == nil ? "" : " match")." : RecordDisplay.table(records))
        }
    }

    struct Watch: AgentCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch", abstract: "Print what each import of other devices' transactions changes, until interrupted.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: RecordStoreOptions
        @OptionGroup var output: OutputOptions

        func run(with agent: UbiqAgentClient) async throws {
            let container = try await options.container(of: agent)
            let imports = try await RecordStore(client: agent, container: container, name: options.store).imports()
            FileHandle.standardError.write(Data("ubiq: watching record store \(options.store) of \(container)\n".utf8))
            for await notice in imports {
                print(try output.json ? JSONValue(encoding: notice).serialized() : RecordDisplay.describe(notice))
                fflush(nil)
            }
        }
    }

    struct RemoveStore: AgentCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm-store", abstract: "Delete a record store on every device: its change logs and each device's local store.",
            discussion: "Waits up to 10 s for a coordinated write of a client of this agent in the store's folder.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: RecordStoreOptions
        @OptionGroup var output: OutputOptions

        func run(with agent: UbiqAgentClient) async throws {
            let container = try await options.container(of: agent)
            let raw = try await agent.connection.call(ControlMethod.recordsDeleteStore.rawValue,
                                                      params: try JSONValue(encoding: RecordsStoreParams(container: container, store: options.store)))
            if output.json { return Terminal.printJSON(raw) }
            let result = try raw.decode(RecordsDeleteStoreResult.self)
            print("Deleted record store \(result.store) of \(result.container) (\(result.logs) change log\(result.logs == 1 ? "" : "s")); other devices remove it as the deletion reaches them.")
        }
    }
}

/// `--container ID` and `--store NAME`, shared by the `ubiq records` subcommands.
struct RecordStoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The container (default: the only container the agent syncs).", valueName: "id"),
            transform: { try ContainerID($0) })
    var container: ContainerID?
    @Option(help: ArgumentHelp("The record store, e.g. todos.", valueName: "name")) var store: String

    /// The container given, else the agent's only one; refused when it syncs none or several.
    func container(of agent: UbiqAgentClient) async throws -> ContainerID {
        if let container { return container }
        let synced = try await agent.status().containers.map(\.id)
        guard synced.count == 1 else {
            throw ValidationError(synced.isEmpty
                ? "the agent syncs no container"
                : "the agent syncs \(synced.count) containers (\(synced.map(\.rawValue).joined(separator: ", "))); name one with --container ID")
        }
        return synced[0]
    }
}
