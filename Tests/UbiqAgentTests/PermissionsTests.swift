import Foundation
import Testing
import UbiqTestSupport

/// Files and folders arrive with the permissions they left with: a private key stays
/// private on every workstation, and a change of permissions alone travels without content.
@Suite(.serialized) struct PermissionsTests {
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    @Test func permissionsTravelBothWaysAndAChangeOfThemAloneMovesNoContent() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        try a.write("Documents/ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
        chmod(a.path("Documents/ssh/id_ed25519"), 0o600)
        chmod(a.path("Documents/ssh"), 0o700)
        try FileManager.default.createDirectory(atPath: a.path("Documents/team"), withIntermediateDirectories: false)
        chmod(a.path("Documents/team"), 0o2770)
        try a.write("Documents/large.bin", SeededBytes.data(4 << 20, seed: 11))
        try await waitForConvergence([a, b], timeout: .seconds(60), "the files with their permissions on beta") {
            $0["Documents/large.bin"] != nil && $0["Documents/ssh/id_ed25519"]?.hasSuffix(" mode 600") == true
                && $0["Documents/team"] == "dir mode 2770" && $0["Documents/ssh"] == "dir mode 700"
        }
        #expect(Self.mode(b.path("Documents/ssh/id_ed25519")) == 0o600)
        #expect(Self.mode(b.path("Documents/ssh")) == 0o700)
        #expect(Self.mode(b.path("Documents/team")) == 0o2770)

        // A change of permissions alone, on beta this time: metadata, no content, set in place
        // on alpha's file (the same inode).
        let before = try await a.status().bytesReceived
        var info = stat()
        #expect(lstat(a.path("Documents/large.bin"), &info) == 0)
        let inode = info.st_ino
        chmod(b.path("Documents/large.bin"), 0o640)
        try await waitUntil("alpha's copy to become 0640") { Self.mode(a.path("Documents/large.bin")) == 0o640 }
        let moved = try await a.status().bytesReceived - before
        print("permissions change of 4 MiB: \(moved) bytes received")
        #expect(moved < 16 << 10, "a change of permissions moved \(moved) bytes")
        #expect(lstat(a.path("Documents/large.bin"), &info) == 0 && info.st_ino == inode, "the file was copied, not changed in place")
        // Still the same bytes, and nothing bounces back.
        try await waitForConvergence([a, b], "the same tree on both") { $0["Documents/large.bin"]?.hasSuffix(" mode 640") == true }
        #expect(Self.mode(b.path("Documents/large.bin")) == 0o640)
    }

    /// `ignore_permissions = true` on beta, for a file system that cannot hold them: beta
    /// neither applies alpha's permissions nor sends its own, and an edit on beta keeps the
    /// permissions alpha gave the file.
    @Test func aContainerIgnoringPermissionsNeitherSendsNorAppliesThem() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.containerSettings = ["ignore_permissions = true"]
        try await cluster.start()
        try await cluster.waitConnected()

        try a.write("Documents/secret.txt", "first")
        chmod(a.path("Documents/secret.txt"), 0o600)
        try await waitUntil("the file on beta") { b.read("Documents/secret.txt") == "first" }
        #expect(Self.mode(b.path("Documents/secret.txt")) == 0o644, "beta applied permissions it ignores")

        // Beta's chmod is not a change; alpha's is not applied on beta.
        chmod(b.path("Documents/secret.txt"), 0o777)
        chmod(a.path("Documents/secret.txt"), 0o640)
        try a.write("Documents/after.txt", "a change after both, so both have scanned")
        try await waitUntil("the later file on beta") { b.read("Documents/after.txt") != nil }
        try await waitUntil("beta to know of alpha's chmod") {
            try await b.items(in: "Documents").first { $0.path == "Documents/secret.txt" }?.permissions == "0640"
        }
        #expect(Self.mode(a.path("Documents/secret.txt")) == 0o640, "beta's chmod reached alpha")
        #expect(Self.mode(b.path("Documents/secret.txt")) == 0o777, "alpha's chmod was applied on beta")

        // An edit on beta: alpha's file keeps its permissions, beta's keeps its own.
        try b.write("Documents/secret.txt", "edited on beta")
        try await waitUntil("beta's edit on alpha") { a.read("Documents/secret.txt") == "edited on beta" }
        #expect(Self.mode(a.path("Documents/secret.txt")) == 0o640)
        try a.write("Documents/secret.txt", "edited on alpha")
        try await waitUntil("alpha's edit on beta") { b.read("Documents/secret.txt") == "edited on alpha" }
        #expect(Self.mode(b.path("Documents/secret.txt")) == 0o777, "the replacement did not keep beta's mode")
    }
}
