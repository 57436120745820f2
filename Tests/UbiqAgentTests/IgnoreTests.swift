import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// Ignore patterns with real agents: what `.ubiqignore` (synced), the config (this device)
/// and the built-in defaults name is neither announced nor applied, and a pattern added
/// later stops a path syncing without deleting it anywhere.
@Suite(.serialized) struct IgnoreTests {
    static func exists(_ agent: AgentProcess, _ path: String) -> Bool {
        FileManager.default.fileExists(atPath: agent.path(path))
    }

    /// `node_modules/` keeps 2,000 files on alpha only while the rest syncs; editors' swap
    /// files stay too, and a file alpha sends that beta's config ignores waits unapplied on
    /// beta; status names each ignored path with the deciding line, and a
    /// malformed line is reported and left out.
    @Test func ignoredPathsStayOnTheirDevice() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.containerSettings = ["ignore = [\"*.tmp\"]"]
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write(".ubiqignore", "# dependencies\nnode_modules/\n[broken\n*.o\n")
        try await waitUntil("the ignore file on beta") { b.read(".ubiqignore") != nil }

        let modules = (0..<2000).map { "Documents/app/node_modules/pkg\($0 / 100)/file\($0).js" }
        for name in modules { try a.write(name, "module") }
        // Each ignored on its own: more than a status lists.
        let objects = ContainerStatus.notSyncedShown + 10
        for number in 0..<objects { try a.write("Documents/app/obj/f\(number).o", "object") }
        try a.write("Documents/app/.main.swift.swp", "swap")
        try a.write("Documents/app/main.swift", "print(1)")
        try b.write("Documents/app/scratch.tmp", "beta's own")
        // Announced by alpha, which does not ignore it; beta's config does.
        try a.write("Documents/app/from-alpha.tmp", "alpha's")
        try b.write("Documents/app/notes.txt", "from beta")
        try await waitUntil("the rest on both") { a.read("Documents/app/notes.txt") == "from beta" && b.read("Documents/app/main.swift") == "print(1)" }
        try await a.withClient { _ = try await $0.rescan(a.container) }
        try await b.withClient { _ = try await $0.rescan(b.container) }

        #expect(!Self.exists(b, "Documents/app/node_modules"), "an ignored folder reached beta")
        #expect(!Self.exists(b, "Documents/app/.main.swift.swp") && !Self.exists(a, "Documents/app/scratch.tmp"))
        // Beta knows of alpha's file and leaves it waiting, unapplied.
        try await waitUntil("beta to hold alpha's .tmp file as its one need") { try await b.status().containers.first?.needItems == 1 }
        #expect(!Self.exists(b, "Documents/app/from-alpha.tmp"), "a path beta's config ignores was applied from a peer")
        let listed = try await a.items(in: "Documents/app").map(\.path)
        #expect(listed.sorted() == ["Documents/app/from-alpha.tmp", "Documents/app/main.swift", "Documents/app/notes.txt", "Documents/app/obj"], "\(listed)")

        let status = try #require(try await a.status().containers.first)
        let ignored = try #require(status.notSynced?.first { $0.path == "Documents/app/node_modules" }, "\(String(describing: status.notSynced))")
        #expect(ignored.ignoredBy == IgnoreLine(source: ".ubiqignore", line: 2, pattern: "node_modules/"))
        #expect(status.notSynced?.contains { $0.path == "Documents/app/.main.swift.swp" && $0.ignoredBy?.source == "defaults" } == true)
        #expect(status.notSynced?.count == ContainerStatus.notSyncedShown && status.notSyncedMore == objects + 2 - ContainerStatus.notSyncedShown,
                "\(String(describing: status.notSynced?.count)) listed, \(String(describing: status.notSyncedMore)) more")
        let shown = try await AgentProcess.cli(["--socket", a.socket, "status"])
        // The CLI names a few and counts the rest.
        let named = shown.split(separator: "\n").filter { $0.contains("/obj/") }.count
        #expect(named < 50 && shown.contains("\(objects + 2 - named - 2) more paths not synced"), "\(shown.suffix(600))")
        #expect(status.ignore?.problems.count == 1 && status.ignore?.problems.first?.contains("line 3") == true, "\(String(describing: status.ignore))")
        let betaStatus = try #require(try await b.status().containers.first)
        #expect(betaStatus.notSynced?.first { $0.path == "Documents/app/scratch.tmp" }?.ignoredBy?.source == "config")
    }

    /// A folder synced before it is ignored stays on both devices, with its last synced
    /// content; edits and deletions there stay local; `items.list` says which line ignores
    /// it. When the pattern goes, the edit made meanwhile syncs.
    @Test func aPatternAddedLaterStopsSyncingWithoutDeleting() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/logs/today.log", "first")
        try a.write("Documents/logs/old.log", "old")
        try a.write("Documents/readme.txt", "hello")
        try await waitForConvergence([a, b], "the logs on beta") { tree in tree["Documents/logs/old.log"] != nil }

        try a.write(".ubiqignore", "logs/\n")
        try await waitUntil("the pattern on beta") { b.read(".ubiqignore") == "logs/\n" }
        try await waitUntil("beta to read it") {
            try await b.items(in: "Documents").first { $0.path == "Documents/logs" }?.ignoredBy != nil
        }
        try a.write("Documents/logs/today.log", "second")
        #expect(unlink(a.path("Documents/logs/old.log")) == 0)
        try a.write("Documents/readme.txt", "hello again")
        try await waitUntil("the readme on beta") { b.read("Documents/readme.txt") == "hello again" }
        try await a.withClient { _ = try await $0.rescan(a.container) }
        try await waitUntil("alpha to announce what it scanned") { try await a.status().containers.first?.scanning == false }

        #expect(b.read("Documents/logs/today.log") == "first" && b.read("Documents/logs/old.log") == "old")
        let entry = try #require(try await b.items(in: "Documents/logs").first { $0.path == "Documents/logs/today.log" })
        #expect(entry.ignoredBy == IgnoreLine(source: ".ubiqignore", line: 1, pattern: "logs/"))
        let peerCount = try await b.status().containers.first?.needItems ?? -1
        #expect(peerCount == 0, "an ignored path was recorded as changed on alpha")

        try a.write(".ubiqignore", "# nothing ignored\n")
        try await waitUntil("alpha's edit on beta once nothing is ignored") {
            b.read("Documents/logs/today.log") == "second" && !Self.exists(b, "Documents/logs/old.log")
        }
    }
}
