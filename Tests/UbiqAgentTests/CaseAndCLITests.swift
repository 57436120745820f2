import Foundation
import Testing
import UbiqTestSupport

@Suite(.serialized) struct CaseAndCLITests {
    /// Two devices create names that differ only in case: neither file is written over the
    /// other, and both agents report the case conflict.
    @Test func pathsThatDifferOnlyInCaseAreReported() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await a.startAndWait()
        try await b.startAndWait()
        try await cluster.waitConnected()
        b.stop()
        try a.write("Documents/Readme.txt", "alpha's readme")
        try b.write("Documents/README.txt", "beta's readme")
        try await b.startAndWait()
        try await waitUntil("both agents to report the case conflict") {
            let (sa, sb) = (try await a.status(), try await b.status())
            return sa.containers[0].caseConflicts == ["Documents/README.txt"] && sb.containers[0].caseConflicts == ["Documents/Readme.txt"]
        }
        #expect(a.read("Documents/Readme.txt") == "alpha's readme")
        #expect(b.read("Documents/README.txt") == "beta's readme")
        #expect(!FileManager.default.fileExists(atPath: a.path("Documents/README.txt")))
        #expect(!FileManager.default.fileExists(atPath: b.path("Documents/Readme.txt")))

        // Beta renames its file: the clash is gone, both files arrive everywhere and status
        // no longer reports it, with no restart.
        try FileManager.default.moveItem(atPath: b.path("Documents/README.txt"), toPath: b.path("Documents/README-beta.txt"))
        try await waitForConvergence([a, b], "both files on both agents") { tree in
            tree["Documents/Readme.txt"] != nil && tree["Documents/README-beta.txt"] != nil && tree["Documents/README.txt"] == nil
        }
        try await waitUntil("both agents to stop reporting the case conflict") {
            let (sa, sb) = (try await a.status(), try await b.status())
            return sa.containers[0].caseConflicts.isEmpty && sb.containers[0].caseConflicts.isEmpty
        }
        #expect(b.read("Documents/Readme.txt") == "alpha's readme")
    }

    /// A rename that changes only the case of a name (`Readme` → `README`) reaches the peer as
    /// one rename: the old name goes as the new one comes, and no clash is reported there.
    @Test func aCaseOnlyRenameConvergesWithoutAClash() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        for round in 0..<5 {
            let old = "Documents/Readme-\(round).md", new = "Documents/README-\(round).MD"
            try a.write(old, "notes \(round)")
            try await waitForConvergence([a, b], "\(old) on beta") { $0[old] != nil }
            try FileManager.default.moveItem(atPath: a.path(old), toPath: a.path(new))
            try await waitForConvergence([a, b], "the rename to \(new) on beta") { $0[new] != nil && $0[old] == nil }
            #expect(b.read(new) == "notes \(round)")
        }
        for agent in [a, b] {
            let status = try await agent.status()
            #expect(status.containers[0].caseConflicts.isEmpty, "\(agent.name) reports \(status.containers[0].caseConflicts)")
        }
    }

    /// The CLI shows a live agent's state for people and as JSON.
    @Test func theCLIShowsStatusPeersAndListings() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/shown.txt", "listed")
        try await waitForConvergence([a, b], "the file on beta") { $0["Documents/shown.txt"] != nil }
        let identity = try await b.withClient { try await $0.identity() }

        let status = try await AgentProcess.cli(["--socket", b.socket, "status"])
        #expect(status.contains(identity.deviceID.rawValue))
        #expect(status.contains("alpha"))
        let json = try await AgentProcess.cli(["status", "--json", "--socket", b.socket])
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect((object?["peers"] as? [[String: Any]])?.first?["connected"] as? Bool == true)
        let peers = try await AgentProcess.cli(["--socket", b.socket, "peers"])
        #expect(peers.contains("alpha"))
        let listing = try await AgentProcess.cli(["--socket", b.socket, "ls", "\(b.container)", "Documents", "--json"])
        #expect(listing.contains("Documents/shown.txt"))
        let account = try await AgentProcess.cli(["account", "show", "--state", b.state, "--json"])
        #expect(account.contains(identity.deviceID.rawValue))
        #expect(account.contains(identity.identityToken ?? "none"))
    }

    /// `ubiq ls` as a person types it: the only container by default, a file shown alone, a
    /// path that is not there an error, and folders' x bits no mark of their own.
    @Test func lsTakesTheOnlyContainerShowsAFileAndRefusesAMissingPath() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try a.write("Documents/Reports/plan.txt", "plan")
        try a.write("Documents/run.sh", "#!/bin/sh\n")
        #expect(chmod(a.path("Documents/run.sh"), 0o755) == 0)
        try await waitUntil("both files indexed, the script executable") {
            let script = try await a.items(in: "Documents").contains { $0.path == "Documents/run.sh" && $0.executable }
            let plan = try await a.items(in: "Documents/Reports").contains { $0.path == "Documents/Reports/plan.txt" }
            return script && plan
        }

        let top = try await AgentProcess.cli(["--socket", a.socket, "ls"])
        #expect(top.contains("Documents/"), "\(top)")
        let documents = try await AgentProcess.cli(["--socket", a.socket, "ls", "Documents"])
        let folderLine = try #require(documents.split(separator: "\n").first { $0.contains("Reports/") }, "\(documents)")
        #expect(!folderLine.contains("executable"), "a 0755 folder is marked executable: \(folderLine)")
        let scriptLine = try #require(documents.split(separator: "\n").first { $0.contains("run.sh") }, "\(documents)")
        #expect(scriptLine.contains("executable"), "\(scriptLine)")

        let file = try await AgentProcess.cli(["--socket", a.socket, "ls", "\(a.container)", "Documents/Reports/plan.txt"])
        #expect(file.contains("plan.txt") && file.contains("4 B") && !file.contains("Empty."), "\(file)")
        let missing = try await AgentProcess.run("ubiq", ["--socket", a.socket, "ls", "Documents/nothing-here"], killAfter: .seconds(60))
        #expect(missing.status != 0)
        #expect(missing.errors.contains("'Documents/nothing-here' is not in container"), "\(missing.errors)")
    }

    /// `ubiq rescan` answers once the scan is recorded: every file written before it is in the
    /// index when the answer arrives, whether or not the watcher saw it first.
    @Test func aRescanIsCompleteWhenItAnswers() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let agent = cluster.agents[0]
        try await cluster.start()
        for i in 0..<20 { try agent.write("Documents/rescan/\(i % 4)/file-\(i).txt", "content \(i)") }
        let json = try await AgentProcess.cli(["--socket", agent.socket, "rescan", "\(agent.container)", "--json"])
        let result = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: agent.root).filter { !$0.hasPrefix(".ubiq") }
        #expect(result["items"] as? Int == onDisk.count)
        #expect((result["seconds"] as? Double).map { $0 >= 0 } == true)
        var listed: Set<String> = []
        for folder in 0..<4 {
            let entries = try await agent.withClient { try await $0.items(container: agent.container, path: "Documents/rescan/\(folder)") }
            listed.formUnion(entries.map(\.path))
        }
        for i in 0..<20 { #expect(listed.contains("Documents/rescan/\(i % 4)/file-\(i).txt")) }
        let human = try await AgentProcess.cli(["--socket", agent.socket, "rescan", "\(agent.container)"])
        #expect(human.contains("\(onDisk.count) entries scanned") && human.contains("0 changed"))

        // An edit the watcher cannot see (made through a hard link outside the container) is
        // found by the rescan and recorded before it answers.
        func version() async throws -> String? {
            try await agent.withClient { try await $0.items(container: agent.container, path: "Documents/rescan/0") }
                .first { $0.path == "Documents/rescan/0/file-0.txt" }?.version
        }
        let before = try await version()
        let outside = agent.home + "/outside-link"
        try FileManager.default.linkItem(atPath: agent.path("Documents/rescan/0/file-0.txt"), toPath: outside)
        let handle = try #require(FileHandle(forWritingAtPath: outside))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("edited behind the watcher's back".utf8))
        try handle.close()
        let edited = try await AgentProcess.cli(["--socket", agent.socket, "rescan", "\(agent.container)", "--json"])
        let editedResult = try #require(try JSONSerialization.jsonObject(with: Data(edited.utf8)) as? [String: Any])
        #expect(editedResult["changed"] as? Int == 1)
        #expect(try await version() != before)
    }
}
