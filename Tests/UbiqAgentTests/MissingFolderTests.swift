import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// A disk that is not there is not a deletion (DESIGN.md §3, "A folder is itself"): with real
/// agents and a real loop-mounted ext4 disk under beta's container, a disk that did not mount
/// at beta's start, or that is unmounted lazily under the running agent, makes the container
/// unavailable, with why, and alpha keeps every file; the disk mounted again resumes syncing
/// with nothing lost; a folder moved away, reset by a person, is filled from the peer.
@Suite(.serialized) struct MissingFolderTests {
    static let root = ConditionTrait.enabled(if: geteuid() == 0, "mounting a loop image needs root")
    static let files = 120

    /// Alpha and beta with `files` files synced, beta's container on a loop disk.
    static func synced(_ cluster: LiveCluster) async throws -> (disk: LoopDisk, tree: [String: String]) {
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let disk = try LoopDisk(at: b.root, image: cluster.directory.appending("beta.img"), bytes: 64 << 20)
        try await cluster.start()
        try await cluster.waitConnected()
        for n in 0..<files { try a.write("Documents/notes/\(n).txt", "note \(n)") }
        try await waitForConvergence([a, b], "the files on both") { $0.count >= files }
        return (disk, try a.digest())
    }

    /// Waits until beta says its container is unavailable; returns the reason.
    static func unavailable(_ agent: AgentProcess) async throws -> String {
        try await waitUntil("the container to be unavailable") { try await agent.status().containers.first?.state == "unavailable" }
        return try #require(try await agent.status().containers.first?.reason)
    }

    /// Alpha writes a file and beta records it without applying it (it is unavailable): the
    /// two have exchanged their indexes since beta found its folder gone.
    static func exchanged(_ a: AgentProcess, _ b: AgentProcess, marker: String) async throws {
        try a.write("Documents/\(marker).txt", marker)
        try await waitUntil("beta to hear of alpha's new file") { try await b.status().containers.first?.needItems ?? 0 > 0 }
    }

    @Test(root) func anAgentStartedOnAnEmptyMountPointKeepsEveryFileOnItsPeer() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let (disk, tree) = try await Self.synced(cluster)
        b.stop()
        try disk.unmount()
        try await b.startAndWait()

        let reason = try await Self.unavailable(b)
        #expect(reason.contains("another file system") && reason.contains("ubiq container reset"), "\(reason)")
        try await Self.exchanged(a, b, marker: "while-beta-is-unavailable")
        var expected = tree
        expected["Documents/while-beta-is-unavailable.txt"] = try a.digest()["Documents/while-beta-is-unavailable.txt"]
        #expect(try a.digest() == expected, "alpha lost files while beta's disk was not there")
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.root).isEmpty, "beta wrote into the empty mount point")
        let shown = try await AgentProcess.cli(["--socket", b.socket, "status"])
        #expect(shown.contains("UNAVAILABLE") && shown.contains("another file system"), "\(shown)")
        #expect(b.logText().contains("container unavailable"))

        try disk.mount()
        try await waitForConvergence([a, b], "beta back with everything, and alpha's new file") { $0 == expected }
        #expect(try await b.status().containers.first?.state == "available")
    }

    @Test(root) func aLazyUnmountUnderARunningAgentMakesItUnavailableAndTheDiskBackResumes() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let (disk, tree) = try await Self.synced(cluster)
        try disk.unmount(lazy: true)

        let reason = try await Self.unavailable(b)
        #expect(reason.contains("marker") || reason.contains("not there"), "\(reason)")
        try await Self.exchanged(a, b, marker: "after-the-unmount")
        var expected = tree
        expected["Documents/after-the-unmount.txt"] = try a.digest()["Documents/after-the-unmount.txt"]
        #expect(try a.digest() == expected, "alpha lost files when beta's disk went away")

        try disk.mount()
        try await waitForConvergence([a, b], "beta back with everything") { $0 == expected }
        // Watched anew: a change on the disk mounted again reaches alpha.
        try b.write("Documents/after-the-return.txt", "seen by the new watch")
        try await waitUntil("alpha to get beta's change") { a.read("Documents/after-the-return.txt") == "seen by the new watch" }
    }

    /// A folder moved away (no root needed): unavailable, nothing made in its place; a person's
    /// `ubiq container reset` makes it and fills it from alpha, deleting nothing there.
    @Test func aFolderMovedAwayIsNotMadeAgainAndAResetFillsItFromThePeer() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        for n in 0..<40 { try a.write("Documents/deep/folder/\(n).txt", "file \(n)") }
        try await waitForConvergence([a, b], "the files on both") { $0.count >= 40 }
        let tree = try a.digest()
        b.stop()
        try FileManager.default.moveItem(atPath: b.root, toPath: b.root + ".away")
        try await b.startAndWait()

        let reason = try await Self.unavailable(b)
        #expect(reason.contains("is not there"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: b.root), "the agent made an empty folder in place of the missing one")
        try await Self.exchanged(a, b, marker: "while-moved-away")
        #expect(try a.digest().count == tree.count + 1, "alpha lost files while beta's folder was away")

        let said = try await AgentProcess.cli(["--socket", b.socket, "container", "reset", b.container.rawValue])
        #expect(said.contains("being fetched"), "\(said)")
        try await waitForConvergence([a, b], "beta filled from alpha") { $0.count == tree.count + 1 }
        #expect(try a.digest().count == tree.count + 1)
    }
}
