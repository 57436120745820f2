import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// A mass deletion waits for a person (DESIGN.md §3), with real agents: a few deletions pass at
/// once; most of a container moved out of it at once is held (alpha keeps
/// every file, beta's status says so), restored from alpha by `ubiq deletions restore`, deleted
/// again and sent by `ubiq deletions confirm`; files no other device holds cannot be restored,
/// and say so; what a client deletes under a coordinated write is meant, and passes.
@Suite(.serialized) struct MassDeletionTests {
    static let folders = 12, perFolder = 50

    static func files(in tree: [String: String]) -> Int { tree.filter { $0.key.hasPrefix("Documents/many/") && !$0.value.hasPrefix("dir") }.count }

    /// Where the file with number `folder` goes: ten folders under `bulk/`, which one rename
    /// takes out of the container at once (a move out is a deletion), and the rest beside it.
    static func folder(_ folder: Int) -> String {
        (1..<10).contains(folder) ? "Documents/many/bulk/\(folder)" : "Documents/many/\(folder)"
    }

    /// Takes `bulk/` out of beta's container, into `away` (removed first).
    static func moveBulkOut(_ agent: AgentProcess) throws {
        let away = agent.home + "/away"
        try? FileManager.default.removeItem(atPath: away)
        #expect(rename(agent.path("Documents/many/bulk"), away) == 0)
    }

    /// Starts alpha and beta and waits until both hold 150 files alpha wrote in `Documents/many`.
    static func startWith150Files(_ cluster: LiveCluster) async throws -> (AgentProcess, AgentProcess) {
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        for n in 0..<150 { try a.write("Documents/many/\(n).txt", "file \(n)") }
        try await waitForConvergence([a, b], "150 files on both") { files(in: $0) == 150 }
        return (a, b)
    }

    @Test func aFewDeletionsPassAndMostOfAContainerWaitsForAPerson() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        for folder in 0..<Self.folders {
            for n in 0..<Self.perFolder { try a.write("\(Self.folder(folder))/\(n).txt", "file \(folder)/\(n)") }
        }
        let all = Self.folders * Self.perFolder
        try await waitForConvergence([a, b], "600 files on both") { Self.files(in: $0) == all }

        // 50 of 600: sent at once.
        try FileManager.default.removeItem(atPath: b.path("Documents/many/0"))
        try await waitForConvergence([a, b], "alpha to take beta's 50 deletions") { Self.files(in: $0) == all - 50 }
        #expect(try await b.status().containers.first?.heldDeletions == nil)

        // 450 of the 550 left: held.
        try Self.moveBulkOut(b)
        try await waitUntil("beta to hold 450 deletions") { try await b.status().containers.first?.heldDeletions?.count == 450 }
        try a.write("Documents/after.txt", "written on alpha after beta's deletions")
        try await waitUntil("beta to get alpha's later file") { b.read("Documents/after.txt") != nil }
        #expect(Self.files(in: try a.digest()) == all - 50, "alpha lost files to a held deletion")
        let listed = try await AgentProcess.cli(["--socket", b.socket, "deletions", b.container.rawValue])
        #expect(listed.contains("450 files") && listed.contains("Documents/many/bulk/5/7.txt"), "\(listed)")
        #expect(try await AgentProcess.cli(["--socket", b.socket, "status"]).contains("450 deletions held"))

        let restored = try await AgentProcess.cli(["--socket", b.socket, "deletions", "restore", b.container.rawValue])
        #expect(restored.contains("being put back"), "\(restored)")
        try await waitForConvergence([a, b], "beta's files back from alpha") { Self.files(in: $0) == all - 50 && $0["Documents/after.txt"] != nil }
        #expect(try await b.status().containers.first?.heldDeletions == nil)

        try Self.moveBulkOut(b)
        try await waitUntil("beta to hold them again") { try await b.status().containers.first?.heldDeletions?.count == 450 }
        let confirmed = try await AgentProcess.cli(["--socket", b.socket, "deletions", "confirm", b.container.rawValue])
        #expect(confirmed.contains("deletions sent"), "\(confirmed)")
        try await waitForConvergence([a, b], "alpha to take the confirmed deletions") { Self.files(in: $0) == 100 }
        #expect(try await b.status().containers.first?.heldDeletions == nil)
    }

    /// An agent alone, whose files no other device ever held: a restore cannot bring them back,
    /// says so, and records their deletions instead of waiting for them for ever.
    @Test func aRestoreOfFilesNoOtherDeviceHoldsSaysTheyAreGone() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        for n in 0..<150 { try a.write("Documents/many/\(n).txt", "file \(n)") }
        try await waitUntil("alpha to index 150 files") { try await a.status().containers.first?.files == 150 }
        // One rename takes them all out at once, as moveBulkOut does: an `rm -r` that the watcher
        // hands over slowly lets its first batches under the threshold pass.
        let away = a.home + "/away"
        #expect(rename(a.path("Documents/many"), away) == 0)
        try await waitUntil("alpha to hold 150 deletions") { try await a.status().containers.first?.heldDeletions?.count == 150 }

        let restored = try await AgentProcess.cli(["--socket", a.socket, "deletions", "restore", a.container.rawValue])
        #expect(restored.contains("150 files were on no other device as they were here") && restored.contains("Documents/many/7.txt"), "\(restored)")
        #expect(!restored.contains("being put back"), "\(restored)")
        try await waitUntil("alpha to record the deletions") {
            let container = try await a.status().containers.first
            return container?.files == 0 && container?.needItems == 0 && container?.heldDeletions == nil
        }
        // The folder they were in stays away, and its deletion is recorded with them.
        #expect(try await a.items(in: "Documents").allSatisfy { !$0.path.hasPrefix("Documents/many") })
    }

    /// Beta restores held deletions from alpha's copies while alpha is down; alpha comes back
    /// without the files (its own deletion held). Beta's fetches find no device holding them:
    /// beta records their deletions, alpha's held ones agree, and nobody waits for ever on a
    /// copy that is nowhere (seed 334862501: two devices that each restored from the other).
    @Test func aRestoreWhoseOnlyHolderLostTheFilesTooRecordsTheDeletions() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = try await Self.startWith150Files(cluster)

        _ = a.stop()
        #expect(rename(b.path("Documents/many"), b.home + "/away") == 0)
        try await waitUntil("beta to hold 150 deletions") { try await b.status().containers.first?.heldDeletions?.count == 150 }
        let restored = try await AgentProcess.cli(["--socket", b.socket, "deletions", "restore", b.container.rawValue])
        #expect(restored.contains("being put back"), "\(restored)")
        try await waitUntil("beta to wait for alpha's copies") { try await b.status().containers.first?.needItems == 150 }

        #expect(rename(a.path("Documents/many"), a.home + "/away") == 0)
        try await a.startAndWait()
        try await waitUntil("beta to record the deletions of files no device holds") {
            let container = try await b.status().containers.first
            return container?.files == 0 && container?.needItems == 0
        }
        try await waitUntil("alpha's held deletions to agree") {
            let container = try await a.status().containers.first
            return container?.files == 0 && container?.needItems == 0 && container?.heldDeletions == nil
        }
        #expect(b.logText().contains("held by no other device"))
    }

    /// A client that deletes a folder of 150 files under a coordinated write lease means it:
    /// the deletions pass the hold and reach the peer, though the watcher tells the agent of
    /// them only after the lease ended.
    @Test func deletionsUnderACoordinatedWritePass() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = try await Self.startWith150Files(cluster)

        try await b.withClient { client in
            try await FileCoordinator(client: client, container: b.container).coordinate(writingItemAt: "Documents/many") {
                try FileManager.default.removeItem(atPath: b.path("Documents/many"))
            }
        }
        try await waitForConvergence([a, b], "alpha to take the coordinated deletions") { Self.files(in: $0) == 0 }
        #expect(try await b.status().containers.first?.heldDeletions == nil)
    }
}
