import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// A container with more folders than the kernel lets the agent watch (its user namespace's
/// `max_inotify_watches` lowered to 5): the agent says so in `agent.status`, `ubiq status`
/// and its log, naming `fs.inotify.max_user_watches`, and rescans on a timer, so a file
/// written in a folder it cannot watch is still found. An agent without the limit watches
/// every folder and says nothing.
@Suite(.serialized) struct WatchLimitTests {
    static let folders = (0..<10).map { "Documents/d\($0)" }

    @Test func foldersPastTheWatchLimitAreRescannedAndTheLimitIsSaid() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        for folder in Self.folders { try a.write(folder + "/before.txt", "found by the first scan") }
        a.inotifyWatchLimit = 5
        a.environment["UBIQ_TEST_UNWATCHED_RESCAN_SECONDS"] = "1"
        try await cluster.start()
        try await cluster.waitConnected()

        let watcher = try #require(try await a.status().containers.first?.watcher)
        #expect(watcher.limitReached && watcher.watches == 5 && watcher.rescanSeconds == 1, "\(watcher)")
        #expect(watcher.problem?.contains("fs.inotify.max_user_watches") == true, "\(watcher)")
        let shown = try await AgentProcess.cli(["--socket", a.socket, "status"])
        #expect(shown.contains("fs.inotify.max_user_watches"), "\(shown)")
        #expect(a.logText().contains("fs.inotify.max_user_watches"))

        // At most 5 of the 12 folders are watched: files written in the others are found by
        // the timed rescans alone, and reach beta.
        for folder in Self.folders { try a.write(folder + "/after.txt", "written after the start in \(folder)") }
        try await waitForConvergence([a, b], "every file written after the start on beta") { tree in
            Self.folders.allSatisfy { tree[$0 + "/after.txt"] != nil }
        }

        let watching = try #require(try await b.status().containers.first?.watcher)
        #expect(!watching.limitReached && watching.problem == nil && watching.rescanSeconds == nil, "\(watching)")
        #expect(watching.watches == 2 + Self.folders.count, "beta watches its root, Documents and every folder in it: \(watching)")
    }
}
