import Foundation
import Testing
import UbiqTestSupport

/// A partly fetched file keeps its verified chunks across a kill -9 and a restart: killed at
/// 90% of 1 GiB, the receiver fetches at most 15% of it again.
@Suite(.serialized) struct ResumeTests {
    @Test func aTransferKilledAtNinetyPercentFetchesLittleAgain() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        defer { cluster.stopAll() }
        // Through a link of 128 MiB/s until the kill, so that 90% can be caught on the way.
        let link = try await cluster.startThroughSlowLink(bytesPerSecond: 128 << 20)
        defer { link.close() }

        let size = 1 << 30
        try a.write("Documents/archive.bin.nosync", SeededBytes.data(size, seed: 41))
        let expected = try TreeDigest.fileHash(a.path("Documents/archive.bin.nosync"))
        #expect(rename(a.path("Documents/archive.bin.nosync"), a.path("Documents/archive.bin")) == 0)
        try await waitUntil("beta to have received 90%", timeout: .seconds(300), every: .milliseconds(5)) {
            try await b.status().bytesReceived > Int64(size) * 9 / 10
        }
        b.kill()
        link.limit(bytesPerSecond: nil)
        #expect(try TreeDigest.of(b.root)["Documents/archive.bin"] == nil, "a file was at its final path before the transfer ended")
        try await b.startAndWait()
        try await waitForConvergence([a, b], timeout: .seconds(300), "the file after the restart") {
            $0["Documents/archive.bin"] == expected
        }
        let again = try await b.status().bytesReceived
        print("killed after 90% of 1 GiB: \(again) bytes received after the restart")
        #expect(again < Int64(size) * 15 / 100, "\(again) bytes fetched again after a restart at 90%")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: b.root + "/.ubiq/tmp")
        #expect(leftovers.isEmpty, "temp files left: \(leftovers)")
    }
}
