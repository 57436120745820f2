import Foundation
import Testing
import UbiqTestSupport

/// Another user of the workstation gets nothing of what an agent keeps for itself: its state
/// (keys, certificates, the index and its journal), an exported account bundle, and the
/// container's `.ubiq` folder.
@Suite(.serialized) struct LocalAccessTests {
    static let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// Runs `arguments` as `nobody`; its exit status.
    static func asNobody(_ arguments: [String]) throws -> Int32 {
        try exitStatus(of: ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + arguments)
    }

    /// Every file and folder under `root`, itself included.
    static func tree(_ root: String) -> [String] {
        var paths = [root]
        if let names = FileManager.default.subpaths(atPath: root) { paths += names.map { root + "/" + $0 } }
        return paths
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode : 0
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to act as another user"))
    func anotherUserReadsNothingTheAgentKeepsForItself() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try a.write("Documents/doc.txt", "for alpha's user")
        try await waitUntil("alpha to index the document") { try await a.status().containers.first?.items ?? 0 >= 2 }
        let bundle = cluster.directory.appending("exported.bundle")
        try await AgentProcess.cli(["account", "export", "--state", a.state, "--out", bundle])

        // The folders above are open to everyone, as home folders often are.
        #expect(chmod(cluster.directory.path, 0o755) == 0 && chmod(a.home, 0o755) == 0)
        let kept = Self.tree(a.state) + Self.tree(a.root + "/.ubiq") + [bundle]
        #expect(kept.contains(a.state + "/index.sqlite-wal"), "the index journal is there while the agent runs")
        for path in kept {
            #expect(Self.mode(path) & 0o077 == 0, "\(path) has mode \(String(Self.mode(path) & 0o7777, radix: 8))")
        }
        for path in kept where Self.mode(path) & S_IFMT == S_IFREG {
            #expect(try Self.asNobody(["cat", path]) != 0, "another user read \(path)")
        }

        // Even with the state folder itself opened by mistake, its files stay closed.
        #expect(chmod(a.state, 0o755) == 0)
        defer { _ = chmod(a.state, 0o700) }
        for path in Self.tree(a.state) where Self.mode(path) & S_IFMT == S_IFREG {
            #expect(try Self.asNobody(["cat", path]) != 0, "another user read \(path)")
        }
        // The refusals above are the permissions at work: the user's own document, written
        // with their usual mode, is readable through the same folders.
        #expect(try Self.asNobody(["cat", a.path("Documents/doc.txt")]) == 0)
    }
}
