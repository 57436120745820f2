import Foundation
import Testing
import UbiqTestSupport

/// A sparse file arrives sparse, and a chunk that occurs many times in a file moves once: a
/// 4 GiB file holding 1 MiB of data moves about 1 MiB and takes about 1 MiB of disk on the
/// receiver.
@Suite(.serialized) struct SparseFileTests {
    static func allocated(_ path: String) -> Int64? {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_blocks) * 512 : nil
    }

    @Test func aSparseFileArrivesSparseAndItsHolesAreNeverSent() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        // 4 GiB, of which four 256 KiB pieces of random data, the rest holes; written in
        // `.nosync` first so that the agent sees it whole.
        let size: UInt64 = 4 << 30
        let staged = a.path("Documents/disk.img.nosync")
        try FileManager.default.createDirectory(atPath: a.path("Documents"), withIntermediateDirectories: true)
        let fd = open(staged, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        try #require(fd >= 0)
        #expect(ftruncate(fd, off_t(size)) == 0)
        for (index, offset) in [UInt64(0), 1 << 30, 3 << 30, size - (256 << 10)].enumerated() {
            let data = SeededBytes.data(256 << 10, seed: UInt64(30 + index))
            #expect(data.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) } == 256 << 10)
        }
        close(fd)
        let onAlpha = try #require(Self.allocated(staged))
        #expect(onAlpha < 4 << 20, "the test's file is not sparse here (\(onAlpha) bytes allocated)")
        let before = try await b.status().bytesReceived
        #expect(rename(staged, a.path("Documents/disk.img")) == 0)

        try await waitForConvergence([a, b], timeout: .seconds(300), "the sparse file on beta") { $0["Documents/disk.img"] != nil }
        let received = try await b.status().bytesReceived - before
        let onBeta = try #require(Self.allocated(b.path("Documents/disk.img")))
        print("sparse 4 GiB file with 1 MiB of data: \(received) bytes received, \(onBeta) bytes allocated on the receiver (\(onAlpha) on the sender)")
        // The data and the chunk lists; the zeros of the chunks where data meets a hole are
        // neither sent (they travel as lengths) nor written (they stay holes).
        #expect(received < (1 << 20) + (192 << 10), "\(received) bytes moved for 1 MiB of data")
        #expect(onBeta < (1 << 20) + (192 << 10), "\(onBeta) bytes allocated for 1 MiB of data")
    }

    /// Forty copies of one file arriving together (a vendored library, the same asset in
    /// many folders) are fetched once: the others are copies made on the receiver.
    @Test func copiesOfOneFileArrivingTogetherAreFetchedOnce() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let content = SeededBytes.data(200 << 10, seed: 51)
        for index in 0..<40 { try a.write("Documents/vendor.nosync/lib\(index)/asset.bin", content) }
        let before = try await b.status().bytesReceived
        #expect(rename(a.path("Documents/vendor.nosync"), a.path("Documents/vendor")) == 0)
        try await waitForConvergence([a, b], timeout: .seconds(120), "the forty copies on beta") { tree in
            (0..<40).allSatisfy { index in tree["Documents/vendor/lib\(index)/asset.bin"] != nil }
        }
        let received = try await b.status().bytesReceived - before
        print("40 copies of a 200 KiB file: \(received) bytes received")
        #expect(received < 1 << 20, "\(received) bytes moved for 40 copies of 200 KiB")
    }

    /// Thirty different files that share most of their bytes (pages made from one template)
    /// arriving together: the shared chunks are fetched once, for the first file, and copied
    /// into the others on the receiver.
    @Test func chunksThatFilesArrivingTogetherShareAreFetchedOnce() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let template = SeededBytes.data(512 << 10, seed: 61)
        for index in 0..<30 {
            try a.write("Documents/pages.nosync/page\(index).bin", template + SeededBytes.data(64 << 10, seed: 100 + UInt64(index)))
        }
        let before = try await b.status().bytesReceived
        #expect(rename(a.path("Documents/pages.nosync"), a.path("Documents/pages")) == 0)
        try await waitForConvergence([a, b], timeout: .seconds(120), "the thirty pages on beta") { tree in
            (0..<30).allSatisfy { index in tree["Documents/pages/page\(index).bin"] != nil }
        }
        let received = try await b.status().bytesReceived - before
        print("30 files of 576 KiB sharing 512 KiB: \(received) bytes received")
        // The template once and each file's own 64 KiB (with the chunk where they meet): about
        // 3 MB, where fetching every file whole moves 17 MB.
        #expect(received < 5 << 20, "\(received) bytes moved for 30 files sharing 512 KiB")
    }
}
