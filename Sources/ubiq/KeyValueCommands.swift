import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq kv get|set|rm|ls|watch --store ID`: the key-value stores of the local agent.
struct KeyValueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv", abstract: "Read, write and watch a key-value store.",
        subcommands: [Get.self, Set.self, Remove.self, List.self, Watch.self])

    /// `--store ID`, shared by the subcommands.
    struct StoreOption: ParsableArguments {
        @Option(help: ArgumentHelp("The key-value store, e.g. TEAMID.com.example.app.", valueName: "id"),
                transform: { try KeyValueStoreID($0) })
        var store: KeyValueStoreID
    }

    struct Get: AgentCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print one key's value.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: StoreOption
        @Argument(help: "The key.") var key: String
        @OptionGroup var output: OutputOptions

        func run(with agent: UbiqAgentClient) async throws {
            let params = try JSONValue(encoding: KeyValueGetParams(store: options.store, key: key))
            let result = try await agent.connection.call(ControlMethod.kvGet.rawValue, params: params)
            if output.json { return Terminal.printJSON(result) }
            guard let value = result["value"], !value.isNull else {
                Terminal.printError(RPCError(.notFound, "no key '\(key)' in \(options.store)"))
                throw ExitCode.failure
            }
            print(KeyValueCommand.display(value))
        }
    }

    struct Set: AgentCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Write one key.",
            discussion: """
                The value is read as JSON (13, 2.5, true, "text", [1,2], {"a":1}, {"$date":"2026-01-31T09:15:02.517Z"}, \
                {"$data":"AAEC"}); anything that is not JSON is taken as a string, so `ubiq kv set name Ada` works. \
                A value too large for the command line (up to the 1 MB limit) comes from a file (`--file PATH`) or from \
                standard input (`-` as the value); with `--data`, the file's bytes are stored as they are, as data.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: StoreOption
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value: JSON, a bare word for a string, or - to read it from standard input.") var value: String?
        @Option(help: ArgumentHelp("Read the value from this file.", valueName: "path")) var file: String?
        @Flag(help: "Store the bytes of the file or standard input as a data value, not as text.") var data = false
        @OptionGroup var output: OutputOptions

        func validate() throws {
            switch (value, file) {
            case (nil, nil): throw ValidationError("give the value, - to read it from standard input, or --file PATH")
            case (.some, .some): throw ValidationError("give the value or --file, not both")
            case (.some(let value), nil) where data && value != "-": throw ValidationError("--data needs --file or - (standard input)")
            default: break
            }
        }

        func run(with agent: UbiqAgentClient) async throws {
            let value = try readValue()
            let params = try JSONValue(encoding: KeyValueSetParams(store: options.store, key: key, value: value))
            let result = try await agent.connection.call(ControlMethod.kvSet.rawValue, params: params)
            if output.json { Terminal.printJSON(result) }
        }

        /// The value as given, or read from the file or standard input.
        private func readValue() throws -> JSONValue {
            let bytes: Data
            if let file {
                guard let contents = FileManager.default.contents(atPath: file) else {
                    throw ValidationError("cannot read \(file)")
                }
                bytes = contents
            } else if value == "-" {
                bytes = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                return KeyValueCommand.parse(value ?? "")
            }
            if data { return ["$data": .string(bytes.base64EncodedString())] }
            guard let text = String(data: bytes, encoding: .utf8) else {
                throw ValidationError("the value is not UTF-8 text; add --data to store its bytes as data")
            }
            // A file's last line break is the file's, not the value's.
            return KeyValueCommand.parse(text.hasSuffix("\n") ? String(text.dropLast()) : text)
        }
    }

    struct Remove: AgentCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove keys.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: StoreOption
        @Argument(help: "The keys.") var keys: [String]
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if keys.isEmpty { throw ValidationError("name at least one key") }
        }

        func run(with agent: UbiqAgentClient) async throws {
            let params = try JSONValue(encoding: KeyValueRemoveParams(store: options.store, keys: keys))
            let result = try await agent.connection.call(ControlMethod.kvRemove.rawValue, params: params)
            if output.json { Terminal.printJSON(result) }
        }
    }

    struct List: AgentCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List every key, its type and value.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: StoreOption
        @OptionGroup var output: OutputOptions

        func run(with agent: UbiqAgentClient) async throws {
            let params = try JSONValue(encoding: KeyValueStoreParams(store: options.store))
            let raw = try await agent.connection.call(ControlMethod.kvList.rawValue, params: params)
            if output.json { return Terminal.printJSON(raw) }
            print(KeyValueCommand.render(try raw.decode(KeyValueListResult.self)))
        }
    }

    struct Watch: AgentCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch", abstract: "Print changes other devices make, as they arrive, until interrupted.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var options: StoreOption
        @OptionGroup var output: OutputOptions

        func run(with agent: UbiqAgentClient) async throws {
            for await notice in try await agent.keyValueChanges(store: options.store) {
                if output.json {
                    print(try JSONValue(encoding: notice).serialized())
                } else {
                    print(KeyValueCommand.describe(notice))
                }
                fflush(nil)
            }
        }
    }

    /// JSON if it parses as JSON, else the text as a string.
    static func parse(_ text: String) -> JSONValue {
        (try? JSONValue(parsing: text)) ?? .string(text)
    }

    /// A value for people: strings bare, everything else as compact JSON.
    static func display(_ value: JSONValue) -> String {
        value.stringValue ?? value.serialized()
    }

    static func render(_ list: KeyValueListResult) -> String {
        var lines: [String] = []
        if !list.values.isEmpty {
            var table = TextTable(header: ["KEY", "TYPE", "VALUE"])
            for (key, value) in list.values.sorted(by: { $0.key < $1.key }) {
                let type = (try? PropertyListJSON.value(value).typeName) ?? value.typeName
                let shown = display(value)
                table.append([key, type, shown.count > 60 ? String(shown.prefix(59)) + "…" : shown])
            }
            lines.append(table.render())
        }
        let keys = list.usage.keys
        lines.append("\(keys) key\(keys == 1 ? "" : "s") of \(list.limits.maxKeys), "
            + "\(ByteCount.format(Int64(list.usage.bytes))) of \(ByteCount.format(Int64(list.limits.maxStoreBytes))).")
        return lines.joined(separator: "\n")
    }

    static func describe(_ notice: KeyValueChangeNotice) -> String {
        var line = "\(notice.reason): \(notice.keys.joined(separator: ", "))"
        for conflict in notice.conflicts ?? [] {
            let winner = conflict.winner.isNull ? "(removed)" : display(conflict.winner)
            let loser = conflict.loser.isNull ? "(removed)" : display(conflict.loser)
            line += "\n  \(conflict.key): \(winner) from \(conflict.winnerDevice.rawValue.shortDeviceID) "
                + "won over \(loser) from \(conflict.loserDevice.rawValue.shortDeviceID)"
        }
        return line
    }
}
