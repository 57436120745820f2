import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// A folder whose permissions were taken away under an ordinary user's agent (beta runs as
/// `nobody`, since root reads and writes everything): beta's status names the folder and the
/// error, what is in it stays in beta's index and on alpha, the rest of the container goes
/// on syncing, and the folder catches up once its permissions are back.
@Suite(.serialized) struct TakenPermissionsTests {
    static let canSwitchUser = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/socat")

    @Test func aFolderWhosePermissionsWereTakenAwaySaysSoLosesNothingAndRecovers() async throws {
        try #require(Self.canSwitchUser, "running beta as another user needs root, setpriv and socat (CI has them)")
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.asOrdinaryUser = true
        try await cluster.start()
        try await cluster.waitConnected()
        let names = (0..<3).map { "Documents/private/n\($0).txt" }
        for name in names { try a.write(name, "kept \(name)") }
        try a.write("Documents/open.txt", "open")
        try await waitForConvergence([a, b], "the files on beta") { tree in names.allSatisfy { tree[$0] != nil } }
        let indexed = try await b.status().containers.first?.files
        #expect(indexed == 4)

        // Beta's user may no longer read or write the folder.
        #expect(chmod(b.path("Documents/private"), 0) == 0)
        _ = try await b.withClient { try await $0.rescan(b.container) }
        try await waitUntil("beta's status to name the folder it cannot read") {
            try await b.status().containers.first?.notSynced?.contains { $0.path == "Documents/private" } == true
        }
        let unread = try #require(try await b.status().containers.first?.notSynced?.first { $0.path == "Documents/private" })
        #expect(unread.reason.contains("Permission denied"), "\(unread.reason)")
        try a.write("Documents/private/later.txt", "written while beta may not look")
        try await waitUntil("beta's status to say it cannot write into the folder") {
            try await b.status().containers.first?.failures.contains { $0.path == "Documents/private/later.txt" } == true
        }
        let failure = try #require(try await b.status().containers.first?.failures.first { $0.path == "Documents/private/later.txt" })
        #expect(failure.error.contains("Permission denied"), "\(failure.error)")
        try a.write("Documents/open2.txt", "the rest syncs")
        try await waitUntil("the rest of the container to reach beta") { b.read("Documents/open2.txt") == "the rest syncs" }
        #expect(names.allSatisfy { a.read($0) == "kept \($0)" }, "alpha lost files of the folder beta cannot read")
        let status = try #require(try await b.status().containers.first)
        #expect(status.state == "available" && status.heldDeletions == nil)


        #expect(chmod(b.path("Documents/private"), 0o755) == 0)
        try await waitForConvergence([a, b], "the folder to catch up on beta") { tree in
            tree["Documents/private/later.txt"] != nil && names.allSatisfy { tree[$0] != nil }
        }
        try await waitUntil("the problems to leave beta's status") {
            let container = try await b.status().containers.first
            return container?.failures.isEmpty == true && (container?.notSynced ?? []).isEmpty
        }
    }
}
