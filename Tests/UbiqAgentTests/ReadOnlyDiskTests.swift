import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// A disk remounted read-only under the running agent (as the kernel does after an I/O error):
/// the changes beta cannot write are listed in its status with the path and the error, its
/// index and files are kept, alpha loses nothing, and all goes through once the disk is
/// writable again. Beta's container is a loop-mounted ext4 image.
@Suite(.serialized) struct ReadOnlyDiskTests {
    @Test(.enabled(if: geteuid() == 0, "mounting a loop image needs root"))
    func aReadOnlyDiskSaysSoAndRecoversWhenWritable() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let disk = try LoopDisk(at: b.root, image: cluster.directory.appending("beta.img"), bytes: 64 << 20)
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/before.txt", "synced before")
        try await waitForConvergence([a, b], "the first file on both") { $0["Documents/before.txt"] != nil }

        try disk.remount(readOnly: true)
        try a.write("Documents/later.txt", "written while beta's disk is read-only")
        try await waitUntil("beta's status to say it cannot write") {
            try await b.status().containers.first?.failures.contains { $0.path == "Documents/later.txt" } == true
        }
        let failure = try #require(try await b.status().containers.first?.failures.first { $0.path == "Documents/later.txt" })
        #expect(failure.error.contains("Read-only file system"), "\(failure.error)")
        #expect(b.read("Documents/before.txt") == "synced before")
        #expect(a.read("Documents/before.txt") == "synced before", "alpha lost a file while beta's disk was read-only")
        #expect(try await b.status().containers.first?.state == "available")

        try disk.remount(readOnly: false)
        try await waitForConvergence([a, b], "beta to catch up once writable") { $0["Documents/later.txt"] != nil }
        try await waitUntil("the failure to leave beta's status") { try await b.status().containers.first?.failures.isEmpty == true }
    }
}
