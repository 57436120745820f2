import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// `ignore.get` and `ignore.set`: `.ubiqignore` edited through the socket applies here and
/// reaches the other devices like any change.
@Suite(.serialized) struct IgnoreFileMethodTests {
    @Test func patternsWrittenThroughTheSocketApplyAndSync() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        let none = try await a.withClient { try await $0.ignoreFile(a.container) }
        #expect(none == IgnoreFile(container: a.container, text: "", exists: false))

        let builtIn = try await a.status().containers.first?.ignore?.patterns ?? 0
        let patterns = "# build output\n*.o\n"
        let written = try await a.withClient { try await $0.setIgnoreFile(a.container, text: patterns) }
        #expect(written == IgnoreFile(container: a.container, text: patterns, exists: true))
        #expect(a.read(".ubiqignore") == patterns)
        #expect(try await a.status().containers.first?.ignore?.patterns == builtIn + 1)
        try a.write("Documents/main.o", "object code")
        try a.write("Documents/main.c", "int main(void) { return 0; }")
        try await waitUntil("the source on beta, and the ignore file") { b.read("Documents/main.c") != nil && b.read(".ubiqignore") == patterns }
        let items = try await a.items(in: "Documents")
        #expect(items.map(\.path) == ["Documents/main.c"], "the object file is not synced: \(items.map(\.path))")
        #expect(b.read("Documents/main.o") == nil)

        _ = try await a.withClient { client in
            await #expect { try await client.setIgnoreFile(a.container, text: String(repeating: "x", count: (1 << 20) + 1)) } throws: {
                ($0 as? RPCError)?.code == .invalidParams
            }
        }
        #expect(a.read(".ubiqignore") == patterns, "a refused text leaves the file as it was")

        let removed = try await a.withClient { try await $0.setIgnoreFile(a.container, text: "") }
        #expect(!removed.exists && !FileManager.default.fileExists(atPath: a.path(".ubiqignore")))
        try await waitUntil("the object file on beta once nothing ignores it") { b.read("Documents/main.o") == "object code" }
    }
}
