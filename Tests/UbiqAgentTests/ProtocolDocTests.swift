import Foundation
import Testing
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// docs/control-protocol.md is what a client in another language is written from: every
/// `socat` example in it is sent, as written, to real agents, and each answer must have the
/// shape the doc prints (issue 41). The doc's sessions named their own version and device
/// IDs, which this run's take the place of (`substituted`). The examples that put a folder
/// back, sign out, rotate or remove a device run last, in the doc's order.
@Suite(.timeLimit(.minutes(5))) struct ProtocolDocTests {
    static let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/control-protocol.md").standardizedFileURL

    /// Methods whose examples take the whole folder back or change the account or its
    /// devices, run after all the others.
    static let last: [String] = ["history.restoreFolder", "container.reset", "device.remove", "account.rotate", "account.leave", "account.create", "account.join"]

    @Test func everyExampleOfTheDocAnswersInTheShapeItShows() async throws {
        let text = try String(contentsOf: Self.doc, encoding: .utf8)
        let examples = ProtocolDocExample.all(in: text)
        let optional = ProtocolDocExample.optionalKeys(in: text)
        #expect(examples.count >= 90, "the doc's examples were not found: \(examples.count)")

        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        for agent in [a, b] { agent.extraArguments = ["--kvstore", "TEAMID.com.example.game"] }
        // As the doc's sessions: a receive-only container of alpha's that `container.revert`
        // takes back, and beta allowing four keys, so a quota violation shows.
        a.configTables = ["[[container]]", "id = \"TEAMID.com.example.site\"",
                          "path = \"\(cluster.directory.appending("site"))\"", "mode = \"receive-only\""]
        b.configTables = ["[kvstore_limits]", "max_keys = 4"]
        try await cluster.start()
        try await cluster.waitConnected()
        for name in ["todo.txt", "list.txt", "old.txt", "final.txt", "copy.txt", "Trip.key/Index.xml", "Trip.key/Data/one.bin"] {
            try a.write("Documents/\(name)", "\(name)\n")
        }
        try await waitUntil("beta to hold alpha's files") { b.read("Documents/Trip.key/Data/one.bin") == "Trip.key/Data/one.bin\n" }
        let synced = Date()
        try FileManager.default.removeItem(atPath: a.path("Documents/old.txt"))
        try await waitUntil("beta to hold alpha's deletion") { b.read("Documents/old.txt") == nil }
        try await cluster.makeConflict("Documents/todo.txt", first: "alpha's edit\n", second: "beta's later edit\n")
        try await cluster.makeConflict("Documents/list.txt", first: "alpha's list\n", second: "beta's list\n")
        try await cluster.waitConnected()
        let betaID = try await b.status().device.id.rawValue
        let moment = ISO8601DateFormatter.string(from: synced, timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds])

        let ordered = examples.filter { !Self.last.contains($0.method) }
            + Self.last.flatMap { method in examples.filter { $0.method == method } }
        var mismatches: [String] = []
        var compared = 0
        var ids: [String: String] = [:]
        for example in ordered {
            let agent = example.socket == "BETA" ? b : a
            let request = try await substituted(example, agent: agent, otherDevice: betaID, moment: moment, ids: &ids)
            // As the person of the doc's session did: a key-value example runs once both agents
            // hold the same values, so a quota counts the keys the doc's did.
            if example.method.hasPrefix("kv.") {
                try await waitUntil("both agents to hold the same key-value pairs") {
                    let (x, y) = (try await send(Self.kvList, to: a.socket), try await send(Self.kvList, to: b.socket))
                    return x?["result"]?["values"] != nil && x?["result"]?["values"] == y?["result"]?["values"]
                }
            }
            guard let answer = try await send(request, to: agent.socket) else {
                mismatches.append("\(example): no answer to \(request)")
                continue
            }
            guard let documented = example.answer else { continue }
            compared += 1
            let differences = AnswerShape.differences(doc: documented, agent: answer, optional: optional)
            if !differences.isEmpty {
                mismatches.append("\(example): \(differences.joined(separator: "; "))\n    sent \(request)\n    got  \(answer.serialized())")
            }
        }
        #expect(compared >= 80, "only \(compared) answers were compared with the doc")
        #expect(mismatches.isEmpty, "\(mismatches.count) examples differ from the doc:\n\(mismatches.joined(separator: "\n"))")
    }

    /// The request with this run's IDs and times: a device ID becomes the other device's; a version or
    /// history ID the doc first uses in a request it shows a result for becomes one of this
    /// run's (a conflict version of the path, else its current version; the newest history
    /// entry), and stays so in later requests; one it only ever shows errors for is kept.
    private func substituted(_ example: ProtocolDocExample, agent: AgentProcess, otherDevice: String, moment: String,
                             ids: inout [String: String]) async throws -> String {
        // The record stores' session named its container in a shell variable.
        let text = example.request.replacingOccurrences(of: "'$C'", with: agent.container.rawValue)
        guard var request = try? JSONValue(parsing: text), var params = request["params"]?.objectValue else { return text }
        // A point in the history of the doc's session: one in this run's, once the files had synced.
        if params["at"] != nil, example.answer?["result"] != nil { params["at"] = .string(moment) }
        for key in ["device", "peer"] where params[key]?.stringValue.map({ DeviceID.isWellFormed($0) }) == true {
            params[key] = .string(otherDevice)
        }
        if let path = params["path"]?.stringValue, params["container"]?.stringValue == agent.container.rawValue {
            for key in ["keep", "version"] {
                guard let id = params[key]?.stringValue, id != "current" else { continue }
                if ids[id] == nil, example.answer?["result"] != nil {
                    if id.hasPrefix("h") {
                        ids[id] = try await newestHistoryID(of: path, on: agent)
                    } else if let versions = try? await agent.versions(path) {
                        ids[id] = versions.conflicts.first?.id ?? versions.current.id
                    }
                }
                if let mine = ids[id] { params[key] = .string(mine) }
            }
        }
        request = .object(request.objectValue!.merging(["params": .object(params)]) { $1 })
        return request.serialized()
    }

    static let kvList = #"{"jsonrpc":"2.0","id":1,"method":"kv.list","params":{"store":"TEAMID.com.example.game"}}"#

    private func newestHistoryID(of path: String, on agent: AgentProcess) async throws -> String? {
        let line = #"{"jsonrpc":"2.0","id":1,"method":"history.list","params":{"container":"\#(agent.container)","path":"\#(path)"}}"#
        return try await send(line, to: agent.socket)?["result"]?["versions"]?.arrayValue?.first?["id"]?.stringValue
    }

    /// The agent's answer to one request line: the first line with its `id` (or, for a
    /// line that is no request, the first error), as `socat` would print it.
    private func send(_ line: String, to socket: String) async throws -> JSONValue? {
        let client = try await RawLineClient(socketPath: socket)
        let id = (try? JSONValue(parsing: line))?["id"]
        let answer: JSONValue?
        do {
            try await client.send(line: line)
            answer = try await client.readJSON(within: .seconds(60)) { answer in
                id.map { answer["id"] == $0 } ?? (answer["error"] != nil)
            }
        } catch {
            await client.close()
            throw error
        }
        await client.close()
        return answer
    }
}
