import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// A transfer into a container on a full file system fails cleanly: the old version stays,
/// no temp file is left, status and events say what is stuck and why, and it completes on
/// its own once space is freed. The container lives on a 16 MiB tmpfs.
@Suite(.serialized) struct FullDiskTests {
    static let canMount = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount")
    static let path = "Documents/large.bin"

    static func freeBytes(_ path: String) -> Int {
        var info = statvfs()
        return statvfs(path, &info) == 0 ? Int(info.f_bavail) * Int(info.f_frsize) : 0
    }

    @Test(.enabled(if: canMount, "needs root to mount a small tmpfs"))
    func aTransferThatRunsOutOfSpaceFailsCleanlyAndCompletesOnceSpaceIsFreed() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try FileManager.default.createDirectory(atPath: b.root, withIntermediateDirectories: true)
        try #require(try exitStatus(of: ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", b.root]) == 0, "cannot mount a tmpfs")
        defer {
            b.stop()
            _ = try? exitStatus(of: ["umount", b.root])
        }
        try await cluster.start()
        try await cluster.waitConnected()

        try a.write(Self.path, SeededBytes.data(6 << 20, seed: 1))
        let old = try TreeDigest.fileHash(a.path(Self.path))
        try await waitForConvergence([a, b], "the first version on beta") { $0[Self.path] == old }

        let events = try await RawLineClient(socketPath: b.socket)
        defer { Task { await events.close() } }
        try await events.send(line: #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        _ = try await events.readJSON()
        // Leave 2 MiB: less than the new version needs beside the old one.
        let filler = b.root + "/.ubiq/filler"
        try Data(count: Self.freeBytes(b.root) - (2 << 20)).write(to: URL(fileURLWithPath: filler))

        try a.write(Self.path, SeededBytes.data(6 << 20, seed: 2))
        let new = try TreeDigest.fileHash(a.path(Self.path))
        try await waitUntil("beta's status to report the failure") {
            try await b.status().containers.first?.failures.first?.path == Self.path
        }
        let failure = try #require(try await b.status().containers.first?.failures.first)
        #expect(failure.error.contains("No space left"), "\(failure.error)")
        let failedEvent = try await events.readJSON(within: .seconds(30)) { $0["params"]?["change"] == "failed" }?["params"]
        #expect(failedEvent?["path"] == .string(Self.path))
        #expect(failedEvent?["error"]?.stringValue?.contains("No space left") == true)
        #expect(try TreeDigest.fileHash(b.path(Self.path)) == old, "the old version did not stay")
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.root + "/.ubiq/tmp").isEmpty, "temp files left")

        try FileManager.default.removeItem(atPath: filler)
        try await waitForConvergence([a, b], "the new version once space is freed") { $0[Self.path] == new }
        try await waitUntil("the failure to leave beta's status") { try await b.status().containers.first?.failures.isEmpty == true }
        #expect(b.isRunning)
    }
}
