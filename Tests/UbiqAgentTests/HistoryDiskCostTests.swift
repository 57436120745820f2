import Foundation
import Testing
import UbiqTestSupport

/// What the history costs in disk space (docs/benchmarks.md): after a 1 MiB edit of a
/// 512 MiB file, at most the old file's own blocks on ext4 (kept by a link, never copied)
/// and at most twice the changed bytes where extents are shared (xfs, btrfs: the new
/// version is cloned from the old one but for its changed blocks); after deleting the file,
/// nothing more. The receiver's container is a loop-mounted image the test makes, so the
/// file system's used blocks measure only the agent's work.
@Suite(.serialized) struct HistoryDiskCostTests {
    static let size = 512 << 20

    static let root = ConditionTrait.enabled(if: geteuid() == 0, "mounting a loop image needs root")

    // A missing mkfs fails the test (CI installs every one; scripts/install-deps.sh here).
    @Test(root) func theHistoryCostsNoCopyOnExt4() async throws { try await measure("ext4", package: "e2fsprogs") }

    @Test(root) func theHistoryCostsOnlyChangedBlocksOnXfs() async throws { try await measure("xfs", package: "xfsprogs") }

    @Test(root) func theHistoryCostsOnlyChangedBlocksOnBtrfs() async throws { try await measure("btrfs", package: "btrfs-progs") }

    func measure(_ kind: String, package: String) async throws {
        try #require(LoopDisk.hasMkfs(kind), "mkfs.\(kind) is missing: apt-get install \(package) (scripts/install-deps.sh)")
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let disk = try LoopDisk(kind: kind, at: b.root, image: cluster.directory.appending("beta.img"), bytes: 3 << 30)
        try await cluster.start()
        try await cluster.waitConnected()

        let path = "Documents/disk.img"
        try a.write("Documents/staging.nosync/disk.img", SeededBytes.data(Self.size, seed: 91))
        #expect(rename(a.path("Documents/staging.nosync/disk.img"), a.path(path)) == 0)
        try await waitForConvergence([a, b], timeout: .seconds(300), "the file on beta") { $0[path] != nil }
        try await waitUntil("beta to settle") { try await b.status().containers.allSatisfy { !$0.scanning && $0.needItems == 0 } }
        let before = disk.used

        // 1 MiB changed in the middle, in place.
        let fd = open(a.path(path), O_WRONLY)
        try #require(fd >= 0)
        let edit = SeededBytes.data(1 << 20, seed: 92)
        #expect(edit.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(Self.size / 2)) } == 1 << 20)
        close(fd)
        let edited = try TreeDigest.fileHash(a.path(path))
        try await waitForConvergence([a, b], timeout: .seconds(300), "the edit on beta") { $0[path] == edited }
        try await waitUntil("beta to keep the old version") { try await HistoryTests.history(b, path).versions.count == 1 }
        let afterEdit = disk.used

        #expect(unlink(a.path(path)) == 0)
        try await waitForConvergence([a, b], timeout: .seconds(300), "the deletion on beta") { $0[path] == nil }
        try await waitUntil("beta to keep the deleted version") { try await HistoryTests.history(b, path).versions.count == 2 }
        let afterDelete = disk.used

        let editCost = afterEdit - before, deleteCost = afterDelete - afterEdit
        print("history disk cost on \(kind): 1 MiB edit of 512 MiB: \(editCost) bytes more in use; deleting it: \(deleteCost) bytes more")
        if kind == "ext4" {
            #expect(editCost <= Int64(Self.size) + (8 << 20), "\(editCost) bytes for keeping a 512 MiB version")
        } else {
            // Twice the changed bytes, and the file system's own metadata (btrfs keeps two
            // copies of it).
            #expect(editCost <= (2 << 20) + (512 << 10), "\(editCost) bytes for 1 MiB changed where extents are shared")
        }
        #expect(deleteCost <= 4 << 20, "\(deleteCost) bytes more after a deletion")
    }
}
