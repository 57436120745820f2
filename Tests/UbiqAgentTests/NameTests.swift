import Foundation
import Testing
import UbiqTestSupport

/// Names a user may give files on Linux, other than the ordinary: each arrives under the same
/// bytes on the peer, with the same content.
@Suite(.serialized) struct NameTests {
    static let names = [
        "line\nbreak.txt",
        "-rf",
        "--help",
        " leading and trailing space ",
        String(repeating: "n", count: 251) + ".txt",
        String(repeating: "é", count: 127) + "x",
        "tab\there",
        "back\\slash",
        "quote\"and'apostrophe",
        "#hash;semicolon&amp$dollar",
        "emoji 🙂.md",
    ]

    @Test func unusualNamesArriveUnderTheSameBytes() async throws {
        let cluster = try LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        #expect(Self.names.allSatisfy { $0.utf8.count <= 255 })
        #expect(Self.names.contains { $0.utf8.count == 255 }, "a name of the longest length Linux allows")
        for (index, name) in Self.names.enumerated() {
            try a.write("Documents/names/" + name, "file \(index)")
        }
        try await waitForConvergence([a, b], timeout: .seconds(60), "every name on beta") { tree in
            Self.names.allSatisfy { tree["Documents/names/" + $0] != nil }
        }
        let listed = Set(try FileManager.default.contentsOfDirectory(atPath: b.path("Documents/names")).map { Array($0.utf8) })
        #expect(listed == Set(Self.names.map { Array($0.utf8) }))
        for (index, name) in Self.names.enumerated() {
            #expect(b.read("Documents/names/" + name) == "file \(index)", "\(name.debugDescription)")
        }
    }
}
