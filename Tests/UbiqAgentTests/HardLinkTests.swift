import Foundation
import Testing
import UbiqTestSupport

/// A write through one name of a hard-linked file is seen under every name, though the
/// watcher reports only the name written through. On the peers each name is its own file.
@Suite(.serialized) struct HardLinkTests {
    @Test func anAppendThroughOneNameReachesThePeerUnderBoth() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        try a.write("Documents/links/one.txt", "first line\n")
        try await waitUntil("beta to have one.txt") { b.read("Documents/links/one.txt") == "first line\n" }
        #expect(link(a.path("Documents/links/one.txt"), a.path("Documents/links/two.txt")) == 0)
        try await waitForConvergence([a, b], "two.txt on beta") { $0["Documents/links/two.txt"] != nil }

        let fd = open(a.path("Documents/links/one.txt"), O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        let more = Array("second line\n".utf8)
        #expect(write(fd, more, more.count) == more.count)
        close(fd)
        let both = "first line\nsecond line\n"
        #expect(a.read("Documents/links/two.txt") == both, "the test's two names are not one file")
        try await waitUntil("beta to have the append under both names", timeout: .seconds(30)) {
            b.read("Documents/links/one.txt") == both && b.read("Documents/links/two.txt") == both
        }
        try await waitForConvergence([a, b], "the same tree on both")
        var one = stat(), two = stat()
        #expect(lstat(b.path("Documents/links/one.txt"), &one) == 0 && lstat(b.path("Documents/links/two.txt"), &two) == 0)
        #expect(one.st_ino != two.st_ino, "the peer's names are separate files")
    }
}
