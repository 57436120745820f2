import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// Names a user may give files on Linux, other than the ordinary: each arrives under the same
/// bytes on the peer, with the same content.
@Suite(.serialized) struct NameTests {
    static let names = [
        "line\nbreak.txt",
        "-rf",
        "--help",
        " leading and trailing space ",
        String(repeating: "n", count: 251) + ".txt",
        String(repeating: "é", count: 127) + "x",
        "tab\there",
        "back\\slash",
        "quote\"and'apostrophe",
        "#hash;semicolon&amp$dollar",
        "emoji 🙂.md",
    ]

    @Test func unusualNamesArriveUnderTheSameBytes() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        #expect(Self.names.allSatisfy { $0.utf8.count <= 255 })
        #expect(Self.names.contains { $0.utf8.count == 255 }, "a name of the longest length Linux allows")
        for (index, name) in Self.names.enumerated() {
            try a.write("Documents/names/" + name, "file \(index)")
        }
        try await waitForConvergence([a, b], timeout: .seconds(60), "every name on beta") { tree in
            Self.names.allSatisfy { tree["Documents/names/" + $0] != nil }
        }
        let listed = Set(try FileManager.default.contentsOfDirectory(atPath: b.path("Documents/names")).map { Array($0.utf8) })
        #expect(listed == Set(Self.names.map { Array($0.utf8) }))
        for (index, name) in Self.names.enumerated() {
            #expect(b.read("Documents/names/" + name) == "file \(index)", "\(name.debugDescription)")
        }
    }

    /// `café.txt` in NFC and in NFD are two files on Linux; Swift's `String ==` takes them for
    /// one. Written at the same moment, both arrive, each with its own bytes, and no case
    /// clash is reported.
    @Test func namesThatDifferOnlyInNormalizationAreTwoFiles() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8), "Swift takes them for one")
        try FileManager.default.createDirectory(atPath: a.path("Documents/twins"), withIntermediateDirectories: true)
        for (name, text) in [(composed, "composed"), (decomposed, "decomposed")] {
            #expect(FileManager.default.createFile(atPath: a.path("Documents/twins/") + name, contents: Data(text.utf8)))
        }
        func names(_ agent: AgentProcess) -> Set<[UInt8]> {
            Set(((try? FileManager.default.contentsOfDirectory(atPath: agent.path("Documents/twins"))) ?? []).map { Array($0.utf8) })
        }
        #expect(names(a).count == 2, "the file system keeps two files")
        // Foundation writes each through a temporary name beside it, which may travel too.
        try await waitUntil("both twins on beta, and nothing else") { names(b) == names(a) }
        for (name, text) in [(composed, "composed"), (decomposed, "decomposed")] {
            let bytes = FileManager.default.contents(atPath: b.path("Documents/twins/") + name)
            #expect(bytes == Data(text.utf8), "\(Array(name.utf8))")
        }
        for agent in [a, b] {
            let status = try await agent.status()
            #expect(status.containers.allSatisfy { $0.caseConflicts.isEmpty && $0.failures.isEmpty }, "\(agent.name): \(status.containers)")
        }
    }

    /// Linux allows any bytes but `/` and NUL in a name; one that is not UTF-8 cannot travel
    /// (the wire and the index carry text). It is listed in status with its bytes escaped and
    /// why, and in a `failed` event; once renamed it syncs and the entry goes.
    @Test func aNameThatIsNotUTF8IsListedInStatusUntilRenamed() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let events = try await RawLineClient(socketPath: a.socket)
        defer { Task { await events.close() } }
        try await events.send(line: #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        _ = try await events.readJSON()
        let bad = Array(a.path("Documents/bad").utf8) + [0xFF] + Array(".txt".utf8)
        let fd = bad.withUnsafeBufferPointer { buffer in
            (buffer.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(fd >= 0)
        _ = write(fd, "kept", 4)
        close(fd)
        try a.write("Documents/after.txt", "a change after it, so a scan has run")
        try await waitForConvergence([a, b], "the file written after it on beta") { $0["Documents/after.txt"] != nil }
        try await waitUntil("alpha's status to list the name") {
            try await a.status().containers.contains { $0.notSynced?.contains { $0.path == "Documents/bad\\xFF.txt" } == true }
        }
        let listed = try #require(try await a.status().containers.compactMap(\.notSynced).joined().first)
        #expect(listed.reason.contains("UTF-8"))
        #expect(try await AgentProcess.cli(["status", "--socket", a.socket]).contains("Documents/bad\\xFF.txt"))
        let event = try await events.readJSON(within: .seconds(30)) { $0["params"]?["change"] == "failed" }
        let failed = event?["params"]
        #expect(failed?["path"] == .string("Documents/bad\\xFF.txt") && failed?["origin"] == "local")
        #expect(failed?["error"]?.stringValue?.contains("UTF-8") == true, "\(String(describing: failed))")
        // Renamed to a name that is text: it syncs, and status no longer lists it.
        let good = a.path("Documents/good.txt")
        #expect(bad.withUnsafeBufferPointer { buffer in
            (buffer.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { rename($0.baseAddress!, good) }
        } == 0)
        try await waitUntil("the renamed file on beta") { b.read("Documents/good.txt") == "kept" }
        try await waitUntil("alpha's status to drop the name") {
            try await a.status().containers.allSatisfy { ($0.notSynced ?? []).isEmpty }
        }
    }
}
