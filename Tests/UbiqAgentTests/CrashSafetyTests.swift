import Foundation
import Testing
import UbiqTestSupport

/// An agent killed at any step of putting a peer's file in place comes back with the file
/// and its index in agreement: the old version or the new one whole at the final path, no
/// temp file left, no conflict version made up, and the new version once it syncs again.
/// The agent dies by `UBIQ_TEST_CRASH_AT` (SIGKILL at that step, see `TestHooks`).
@Suite(.serialized) struct CrashSafetyTests {
    static let path = "Documents/crash.bin"

    /// 2 MiB goes through the one-at-a-time path, 64 KiB through a group of small files.
    @Test(arguments: [("staged", 2 << 20), ("before-rename", 2 << 20), ("renamed", 2 << 20),
                      ("staged", 64 << 10), ("before-rename", 64 << 10), ("renamed", 64 << 10)])
    func aCrashWhileApplyingLosesNothing(step: String, size: Int) async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        try a.write(Self.path, SeededBytes.data(size, seed: 1))
        let old = try TreeDigest.fileHash(a.path(Self.path))
        try await waitForConvergence([a, b], "the first version on beta") { $0[Self.path] == old }

        b.stop()
        b.environment = ["UBIQ_TEST_CRASH_AT": step, "UBIQ_TEST_CRASH_PATH": Self.path]
        try await b.startAndWait()
        try a.write(Self.path, SeededBytes.data(size, seed: 2))
        let new = try TreeDigest.fileHash(a.path(Self.path))
        try await waitUntil("beta to die at \(step)", timeout: .seconds(60)) { !b.isRunning }

        // What a crash leaves at the final path is one whole version, never a mix.
        let atCrash = try TreeDigest.fileHash(b.path(Self.path))
        #expect(atCrash == (step == "renamed" ? new : old), "after a crash at \(step) the file is neither whole version")

        b.environment = [:]
        try await b.startAndWait()
        try await waitForConvergence([a, b], "the new version on beta after the restart") { $0[Self.path] == new }
        try await waitUntil("beta to have nothing left to apply") { try await b.status().containers.first?.needItems == 0 }
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.root + "/.ubiq/tmp").isEmpty, "temp files left")
        for agent in [a, b] {
            let versions = try await agent.versions(Self.path)
            #expect(versions.conflicts.isEmpty, "\(agent.name) made up conflict versions: \(versions.conflicts)")
        }
        try await waitUntil("both to agree on the current version") {
            try await a.versions(Self.path).current == b.versions(Self.path).current
        }
    }
}
