import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// `ubiq records` and the `ubiq-todo` example against real agents: saving changes given as
/// JSON (argument, file, standard input) or in words, fetching with a condition, an order and
/// a limit, watching another device's transactions arrive, refusing bad input without saving
/// anything, and a to-do list made on one device shown alike on another.
@Suite(.serialized) struct RecordCommandTests {
    static let store = "todos"
    static func key(_ entity: String, _ id: String) -> RecordKey { RecordKey(entity: try! RecordName(entity), id: try! RecordID(id)) }
    static func name(_ raw: String) -> RecordName { try! RecordName(raw) }
    static func text(_ raw: String) -> RecordValue { .value(.string(raw)) }

    static func records(_ agent: AgentProcess, _ entity: String = "Task") async throws -> [RecordKey: [RecordName: RecordValue]] {
        try await agent.withClient { client in
            let store = RecordStore(client: client, container: agent.container, name: Self.store)
            return Dictionary(uniqueKeysWithValues: try await store.fetch(entity).map { ($0.key, $0.values) })
        }
    }

    static func logCount(_ agent: AgentProcess) throws -> Int {
        let folder = agent.path("Records/\(store)")
        guard FileManager.default.fileExists(atPath: folder) else { return 0 }
        return try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ubiqlog") }.count
    }

    @Test func saveTakesChangesAsJSONFromAnArgumentAFileOrStandardInputAndOneChangeInWords() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()

        let argument = #"[{"op":"insert","entity":"List","id":"l-1","attributes":{"title":"shopping"}},"#
            + #"{"op":"insert","entity":"Task","id":"t-1","attributes":{"title":"milk","note":"oat","list":{"$ref":{"entity":"List","id":"l-1"}}}}]"#
        let saved = try await a.records(["save", "--container", a.container.rawValue, "--store", Self.store, argument])
        #expect(saved.hasPrefix("Saved transaction ") && saved.contains("(2 changes) in Records/todos/"), "\(saved)")

        let file = cluster.directory.appending("change.json")
        try Data(#"{"op":"insert","entity":"Task","id":"t-2","attributes":{"title":"bread","rank":2}}"#.utf8).write(to: URL(fileURLWithPath: file))
        let fromFile = try await JSONValue(parsing: try a.records(["save", "--store", Self.store, "--file", file, "--json"])).decode(RecordsSaveResult.self)
        #expect(FileManager.default.fileExists(atPath: a.path(fromFile.log)))

        let seen = #"{"$date":"2026-11-22T10:00:00.250Z"}"#
        try await a.records(["save", "--store", Self.store, "-"],
                      input: Data(#"[{"op":"insert","entity":"Task","id":"t-3","attributes":{"title":"eggs","seen":\#(seen)}}]"#.utf8))

        try await a.records(["save", "--store", Self.store, "insert", "Task", "t-4", "title=call Ada", "done=false", "rank=3", "list=@List/l-1", #"handle="@ada""#])
        try await a.records(["save", "--store", Self.store, "update", "Task", "t-1", "done=true", "note="])
        try await a.records(["save", "--store", Self.store, "delete", "Task", "t-2"])

        let list = RecordValue.reference(Self.key("List", "l-1"))
        let expected: [RecordKey: [RecordName: RecordValue]] = [
            Self.key("Task", "t-1"): [Self.name("title"): Self.text("milk"), Self.name("done"): .value(.bool(true)), Self.name("list"): list],
            Self.key("Task", "t-3"): [Self.name("title"): Self.text("eggs"), Self.name("seen"): .value(try PropertyListJSON.value(JSONValue(parsing: seen)))],
            Self.key("Task", "t-4"): [Self.name("title"): Self.text("call Ada"), Self.name("done"): .value(.bool(false)),
                                      Self.name("rank"): .value(.integer(3)), Self.name("list"): list, Self.name("handle"): Self.text("@ada")],
        ]
        #expect(try await Self.records(a) == expected)
        #expect(try await Self.records(a, "List") == [Self.key("List", "l-1"): [Self.name("title"): Self.text("shopping")]])
        #expect(try Self.logCount(a) == 6)
    }

    @Test func fetchFiltersSortsAndLimitsAsATableAndAsJSON() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let list = RecordValue.reference(Self.key("List", "l-1"))
        func task(_ id: String, _ title: String, done: Bool, rank: Int64?) -> RecordChange {
            var attributes = [Self.name("title"): Self.text(title), Self.name("done"): .value(.bool(done)), Self.name("list"): list]
            attributes[Self.name("rank")] = rank.map { .value(.integer($0)) }
            return .insert(Self.key("Task", id), attributes: attributes)
        }
        _ = try await a.withClient { client in
            try await RecordStore(client: client, container: a.container, name: Self.store).save([
                task("t-1", "milk", done: false, rank: 3), task("t-2", "bread", done: true, rank: 1), task("t-3", "brie", done: false, rank: 2),
                task("t-4", "eggs", done: false, rank: 5), task("t-5", "tea", done: false, rank: nil),
            ])
        }

        let open = #"{"attribute":"done","op":"==","value":false}"#
        let json = try await a.records(["fetch", "Task", "--store", Self.store, "--where", open, "--sort", "-rank", "--limit", "2", "--json"])
        let result = try JSONValue(parsing: json).decode(RecordsFetchResult.self)
        #expect(result.records.map(\.id) == ["t-4", "t-1"])
        #expect(result.records.first?.attributes == ["title": "eggs", "done": false, "rank": 5, "list": ["$ref": ["entity": "List", "id": "l-1"]]])

        let table = try await a.records(["fetch", "Task", "--store", Self.store, "--sort", "rank"]).split(separator: "\n").map(String.init)
        #expect(table.first?.split(separator: " ", omittingEmptySubsequences: true) == ["ID", "DONE", "LIST", "RANK", "TITLE"])
        // Ascending rank; the record without one last.
        #expect(table.dropFirst().map { String($0.prefix(3)) } == ["t-2", "t-3", "t-1", "t-4", "t-5"])
        #expect(table[1].split(separator: " ", omittingEmptySubsequences: true) == ["t-2", "true", "@List/l-1", "1", "bread"])

        let contains = #"{"attribute":"title","contains":"br"}"#
        let breads = try await a.records(["fetch", "Task", "--store", Self.store, "--where", contains, "--sort", "done,-title"])
        #expect(breads.split(separator: "\n").dropFirst().map { String($0.prefix(3)) } == ["t-3", "t-2"])
        let none = #"{"attribute":"title","op":"==","value":"caviar"}"#
        await #expect(try a.records(["fetch", "Task", "--store", Self.store, "--where", none]) == "No Task records in todos match.\n")
    }

    @Test func watchPrintsEachImportOfAnotherDevicesTransaction() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let json = try RunningProgram("ubiq", ["records", "watch", "--store", Self.store, "--json", "--socket", b.socket])
        let plain = try RunningProgram("ubiq", ["records", "watch", "--store", Self.store, "--socket", b.socket])
        defer { json.stop(); plain.stop() }
        try await waitUntil("both watchers to subscribe on beta") {
            [json, plain].allSatisfy { $0.errors.contains("watching record store todos of \(b.container)") }
        }

        try await a.records(["save", "--store", Self.store, "insert", "Task", "t-1", "title=milk"])
        try await waitUntil("the JSON watcher to print alpha's insert", timeout: .seconds(30)) { json.lines.count == 1 }
        let first = try JSONValue(parsing: json.lines[0]).decode(RecordsDidImportNotice.self)
        #expect(first.container == b.container && first.store == Self.store)
        #expect(first.inserted == [RecordKeyJSON(entity: "Task", id: "t-1")] && first.updated.isEmpty && first.deleted.isEmpty)

        try await a.records(["save", "--store", Self.store, "update", "Task", "t-1", "done=true"])
        try await waitUntil("the watchers to print alpha's update", timeout: .seconds(30)) { json.lines.count == 2 && plain.lines.count == 2 }
        #expect(try JSONValue(parsing: json.lines[1]).decode(RecordsDidImportNotice.self).updated == [RecordKeyJSON(entity: "Task", id: "t-1")])
        #expect(plain.lines == ["todos: inserted Task/t-1", "todos: updated Task/t-1"])
    }

    @Test func badInputIsRefusedWithANonzeroExitAndNothingIsSaved() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try await a.records(["save", "--store", Self.store, "insert", "Task", "t-1", "title=milk"])

        let save = ["save", "--store", Self.store]
        let refused: [(arguments: [String], input: String?, message: String)] = [
            (save + [#"[{"op":"insert""#], nil, "the argument is not JSON"),
            (save + ["42"], nil, "not a list of changes"),
            (save + [#"[{"op":"insert","entity":"Task"}]"#], nil, "changes: '[0].id' is missing"),
            (save + ["-"], #"[{"op":"insert","entity":"Task","id":"t-2"},{"op":"update","entity":"Task","id":"none","attributes":{"a":1}}]"#,
             "nothing was saved"),
            (save + ["insert", "Task", "t-1", "title=again"], nil, "nothing was saved"),
            (save + ["insert", "Task", "t-3", "9lives=1"], nil, "not an entity or attribute name"),
            (save + ["insert", "Task", "t-3", "note="], nil, "note= has no value"),
            (save + ["insert", "Task", "t-3", "title"], nil, "'title' is not NAME=VALUE"),
            (save + ["update", "Task", "t-1", "list=@List"], nil, "list=@List is not a reference"),
            (save + ["delete", "Task", "t-1", "title=x"], nil, "a delete takes no NAME=VALUE"),
            (save + ["remove", "Task", "t-1"], nil, "'remove' is no change"),
            (save + ["-"], #"[{"op":"insert","entity":"Task","id":"big","attributes":{"blob":"\#(String(repeating: "x", count: 1_100_000))"}}]"#,
             "more than 1048576 bytes"),
            (["save", "--store", "../up", "delete", "Task", "t-1"], nil, "is not a record store name"),
            (["save", "--store", Self.store, "--container", "TEAMID.com.example.other", "delete", "Task", "t-1"], nil, "container"),
            (["fetch", "Task", "--store", Self.store, "--where", "{oops"], nil, "--where is not JSON"),
            (["fetch", "Task", "--store", Self.store, "--where", #"{"attribute":"done","op":"~","value":1}"#], nil, "op is '~'"),
            (["fetch", "Task", "--store", Self.store, "--limit=-1"], nil, "--limit is -1"),
        ]
        for (arguments, input, message) in refused {
            let result = try await AgentProcess.run("ubiq", ["records"] + arguments + ["--socket", a.socket], input: input.map { Data($0.utf8) })
            #expect(result.status != 0, "ubiq records \(arguments.joined(separator: " ").prefix(200)) exited 0")
            #expect(result.errors.contains(message), "ubiq records \(arguments.joined(separator: " ").prefix(200)): \(result.errors.prefix(500))")
        }
        #expect(try await Self.records(a) == [Self.key("Task", "t-1"): [Self.name("title"): Self.text("milk")]])
        #expect(try Self.logCount(a) == 1)
    }

    @Test func theTodoExampleMadeOnOneDeviceListsAlikeOnAnother() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        func todo(_ agent: AgentProcess, _ arguments: [String]) async throws -> String {
            let result = try await AgentProcess.run("ubiq-todo", arguments + ["--socket", agent.socket])
            guard result.status == 0 else { throw TimedOut(description: "ubiq-todo \(arguments) failed (\(result.status)): \(result.errors)") }
            return result.output
        }
        /// "Added 1a2b3c4d: milk (shopping)" → "1a2b3c4d"
        func id(_ added: String) throws -> String {
            try #require(added.split(separator: " ").dropFirst().first.map { String($0.dropLast()) })
        }

        let milk = try await id(try todo(a, ["add", "milk", "--list", "shopping"]))
        let bread = try await id(try todo(a, ["add", "bread", "--list", "shopping"]))
        let call = try await id(try todo(a, ["add", "call Ada"]))
        await #expect(try todo(a, ["done", String(milk.prefix(6))]) == "Done: milk\n")

        let expected = ["[ ] \(bread)  bread  (shopping)", "[ ] \(call)  call Ada  (inbox)", "[x] \(milk)  milk  (shopping)"]
        await #expect(try todo(a, ["ls"]) == expected.joined(separator: "\n") + "\n")
        try await waitUntil("beta to list alpha's tasks") { try await todo(b, ["ls"]) == expected.joined(separator: "\n") + "\n" }
        await #expect(try todo(b, ["ls", "--list", "shopping"]) == [expected[0], expected[2]].joined(separator: "\n") + "\n")
        #expect(try await Self.records(b, "List").keys.map(\.id.rawValue).sorted() == ["inbox", "shopping"])
    }
}

private extension AgentProcess {
    /// `ubiq records ARGUMENTS --socket` this agent's socket, to completion; throws on failure.
    @discardableResult
    func records(_ arguments: [String], input: Data? = nil) async throws -> String {
        try await Self.cli(["records"] + arguments + ["--socket", socket], input: input)
    }
}
