import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// What a person compares before keeping a version: `conflicts.list` finds the files with
/// conflict versions, and `versions.read` gives each version's content, on both devices,
/// changing nothing.
@Suite(.serialized) struct ConflictReadingTests {
    @Test func conflictsAreListedAndEachVersionCanBeRead() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/doc.txt"
        try a.write(path, "version zero")
        try await waitForConvergence([a, b], "the first version on beta") { _ in b.read(path) == "version zero" }
        #expect(try await a.withClient { try await $0.conflicts(in: a.container) }.isEmpty)
        try await cluster.makeConflict(path, first: "edited on alpha", second: "edited on beta, later")

        let edits = ["edited on alpha", "edited on beta, later"]
        for agent in [a, b] {
            let listed = try await agent.withClient { try await $0.conflicts(in: agent.container) }
            #expect(listed.map(\.path) == [path] && listed.first?.conflicts == 1)
            let versions = try await agent.versions(path)
            let conflictID = try #require(versions.conflicts.first?.id)
            let (current, other) = try await agent.withClient { client in
                (try await client.readVersion(agent.container, path: path),
                 try await client.readVersion(agent.container, path: path, version: .version(conflictID)))
            }
            #expect(String(decoding: current.data, as: UTF8.self) == agent.read(path))
            #expect(Set([current.data, other.data].map { String(decoding: $0, as: UTF8.self) }) == Set(edits))
            #expect(current.version == versions.current.id && other.version == conflictID && !other.truncated)
            #expect(other.size == Int64(other.data.count))

            let start = try await agent.withClient { try await $0.readVersion(agent.container, path: path, version: .version(conflictID), maxBytes: 6) }
            #expect(start.data == other.data.prefix(6) && start.truncated && start.size == other.size)
        }

        _ = try await a.withClient { client in
            await #expect { try await client.readVersion(a.container, path: path, version: .version("PEERPEER-9")) } throws: {
                ($0 as? RPCError)?.code == .conflictNotFound
            }
            await #expect { try await client.readVersion(a.container, path: "Documents") } throws: { ($0 as? RPCError)?.code == .invalidParams }
            await #expect { try await client.readVersion(a.container, path: path, maxBytes: 5 << 20) } throws: {
                ($0 as? RPCError)?.code == .invalidParams
            }
            await #expect { try await client.readVersion(a.container, path: "../outside") } throws: { ($0 as? RPCError)?.code == .invalidPath }
        }
        // Reading changed nothing: the conflict and both files are as they were.
        #expect(try await a.versions(path).conflicts.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: a.path("Documents")) == ["doc.txt"])
    }
}
