import Foundation
import Testing
import UbiqControlAPI

/// Runs the built `ubiq` executable against a test server. `swift build --build-tests`
/// builds it next to the test bundle; the tests skip if it is not there.
@Suite struct CLITests {
    static let binary: String? = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidate = bundle.appendingPathComponent("ubiq").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()

    static func ubiq(_ arguments: String...) async throws -> (status: Int32, output: String) {
        try await runProcess([try #require(binary)] + arguments, input: "")
    }

    /// The commands a new user reaches for in the first hour show how they are called in their
    /// help, each example a command line of that very command (issue 41).
    @Test(.enabled(if: binary != nil, "the ubiq executable is not built next to the tests"))
    func theFirstHoursCommandsShowExamplesInTheirHelp() async throws {
        let commands = [["ls"], ["versions"], ["resolve"], ["history"], ["trash"], ["restore"], ["deletions"],
                        ["pause"], ["resume"], ["limit"], ["account", "join"], ["device", "invite"], ["device", "remove"]]
        for command in commands {
            let (status, output) = try await runProcess([try #require(Self.binary)] + command + ["--help"], input: "")
            #expect(status == 0, "ubiq \(command.joined(separator: " ")) --help: \(output)")
            let examples = output.components(separatedBy: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("ubiq ") }
            #expect(output.contains("Example"), "ubiq \(command.joined(separator: " ")) --help shows no example:\n\(output)")
            #expect(examples.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("ubiq " + command.joined(separator: " ")) },
                    "ubiq \(command.joined(separator: " ")) --help has no example of itself:\n\(output)")
        }
    }

    @Test(.enabled(if: binary != nil, "the ubiq executable is not built next to the tests"))
    func statusTakesTheSocketBeforeOrAfterTheSubcommand() async throws {
        try await withServer { context throws in
            for arguments in [["--socket", context.socketPath, "status"], ["status", "--socket", context.socketPath]] {
                let (status, output) = try await runProcess([try #require(Self.binary)] + arguments, input: "")
                #expect(status == 0)
                #expect(output.contains("workstation  AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD"))
                #expect(output.contains("TEAM123.com.example.notes"))
                #expect(output.contains("case conflict at Documents/readme.txt"))
                #expect(output.contains("5.4 MiB"))
            }
        }
    }

    @Test(.enabled(if: binary != nil, "the ubiq executable is not built next to the tests"))
    func jsonOutputIsTheAgentsAnswer() async throws {
        try await withServer { context throws in
            let cases: [([String], JSONValue)] = [
                (["status"], try JSONValue(encoding: Fixtures.status)),
                (["peers"], try JSONValue(encoding: Fixtures.peers)),
                (["ls", Fixtures.container.rawValue, "Documents"], try JSONValue(encoding: Fixtures.items(under: "Documents"))),
                (["versions", Fixtures.container.rawValue, "notes.txt"], try JSONValue(encoding: Fixtures.versions(of: "notes.txt"))),
                (["resolve", Fixtures.container.rawValue, "notes.txt", "--keep", Fixtures.conflictID],
                 ["path": "notes.txt", "kept": .string(Fixtures.conflictID)]),
            ]
            for (arguments, expected) in cases {
                let (status, output) = try await runProcess(
                    [try #require(Self.binary), "--socket", context.socketPath] + arguments + ["--json"], input: "")
                #expect(status == 0, "\(arguments)")
                #expect(try JSONValue(parsing: output) == expected, "\(arguments)")
                #expect(output == expected.serialized(pretty: true) + "\n")
            }
        }
    }

    @Test(.enabled(if: binary != nil, "the ubiq executable is not built next to the tests"))
    func humanOutputIsATable() async throws {
        try await withServer { context throws in
            let socket = ["--socket", context.socketPath]
            let binary = try #require(Self.binary)
            let ls = try await runProcess([binary] + socket + ["ls", Fixtures.container.rawValue], input: "").output
            #expect(ls.contains("Documents/"))
            #expect(ls.contains("link -> notes.txt"))
            #expect(ls.contains("12.1 KiB"))
            #expect(ls.contains("executable, 1 conflict, not downloaded"))
            let versions = try await runProcess([binary] + socket + ["versions", Fixtures.container.rawValue, "notes.txt"], input: "").output
            #expect(versions.contains("* ") && versions.contains(Fixtures.conflictID))
            #expect(versions.contains("1 unresolved conflict"))
            let peers = try await runProcess([binary] + socket + ["peers"], input: "").output
            #expect(peers.contains("offline: connection refused"))
            let resolve = try await runProcess([binary] + socket + ["resolve", Fixtures.container.rawValue, "notes.txt", "--keep", "current"], input: "")
            #expect(resolve.status == 0)
            #expect(resolve.output.contains("Kept AAAAAAAA-3 at notes.txt"))
        }
    }

    @Test(.enabled(if: binary != nil, "the ubiq executable is not built next to the tests"))
    func failuresExitNonZero() async throws {
        try await withServer { context throws in
            let binary = try #require(Self.binary)
            let missing = try await runProcess([binary, "--socket", context.folder.path + "/none.sock", "status"], input: "")
            #expect(missing.status != 0)
            #expect(missing.output.isEmpty)
            let unknown = try await runProcess(
                [binary, "--socket", context.socketPath, "resolve", Fixtures.container.rawValue, "notes.txt", "--keep", "nope"], input: "")
            #expect(unknown.status != 0)
            let badContainer = try await runProcess([binary, "--socket", context.socketPath, "ls", "nodots", "Documents"], input: "")
            #expect(badContainer.status != 0)
        }
    }
}
