import Foundation
import Testing
import UbiqFileSystem
import UbiqModel
import UbiqTestSupport

/// The `user.` extended attributes of files and folders (tags, origin URLs, checksums that
/// tools keep) travel with them, a change of them alone moves no content, a container can
/// switch them off, and a set past the limit is listed in status instead of sent.
@Suite(.serialized) struct AttributesTests {
    static func attributes(_ path: String) -> ExtendedAttributes? { try? ExtendedAttributes.read(atPath: path) }

    static func set(_ path: String, _ pairs: [(String, [UInt8])]) throws {
        try ExtendedAttributes(pairs.map { .init(name: $0.0, value: $0.1) }).write(toPath: path)
    }

    @Test func attributesTravelBothWaysAndAChangeOfThemAloneMovesNoContent() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        try FileManager.default.createDirectory(atPath: a.path("Documents/photos"), withIntermediateDirectories: true)
        try a.write("Documents/photos/beach.jpg", SeededBytes.data(4 << 20, seed: 31))
        try a.write("Documents/photos/key", "private")
        chmod(a.path("Documents/photos/key"), 0o600)
        try Self.set(a.path("Documents/photos/beach.jpg"), [("user.xdg.tags", Array("holiday,beach".utf8)),
                                                           ("user.checksum.sha256", [0, 1, 0xFE, 0xFF, 0])])
        try Self.set(a.path("Documents/photos/key"), [("user.xdg.origin.url", Array("https://example.org/key".utf8))])
        try Self.set(a.path("Documents/photos"), [("user.xdg.comment", Array("summer".utf8))])
        // waitForConvergence compares each path's attributes too (TreeDigest).
        try await waitForConvergence([a, b], "the files and folder with their attributes on beta") {
            $0["Documents/photos/beach.jpg"]?.contains("user.xdg.tags=") == true && $0["Documents/photos"]?.contains("user.xdg.comment=") == true
                && $0["Documents/photos/key"]?.contains(" mode 600 user.xdg.origin.url=") == true
        }
        #expect(Self.attributes(b.path("Documents/photos/beach.jpg"))?["user.checksum.sha256"] == [0, 1, 0xFE, 0xFF, 0])

        // On beta this time: one attribute changed, one removed, one added, bytes untouched.
        let before = try await a.status().bytesReceived
        let inode = TimesTests.inode(a.path("Documents/photos/beach.jpg"))
        let retagged = try ExtendedAttributes([.init(name: "user.xdg.tags", value: Array("holiday".utf8)),
                                               .init(name: "user.rating", value: Array("5".utf8))])
        try retagged.write(toPath: b.path("Documents/photos/beach.jpg"))
        try await waitUntil("alpha's copy to carry beta's attributes") { Self.attributes(a.path("Documents/photos/beach.jpg")) == retagged }
        let moved = try await a.status().bytesReceived - before
        print("attribute change of a 4 MiB file: \(moved) bytes received")
        #expect(moved < 16 << 10, "a change of attributes moved \(moved) bytes")
        #expect(TimesTests.inode(a.path("Documents/photos/beach.jpg")) == inode, "the file was copied, not changed in place")
        try await waitForConvergence([a, b], "the same tree on both") {
            $0["Documents/photos/beach.jpg"]?.contains("user.rating=35") == true
        }
        for agent in [a, b] {
            let status = try await agent.status()
            #expect(status.containers.allSatisfy { $0.failures.isEmpty && ($0.notSynced ?? []).isEmpty }, "\(agent.name)")
        }
    }

    /// `extended_attributes = false` on beta: beta neither applies alpha's attributes nor
    /// sends its own, and an edit on beta keeps the attributes alpha gave the file.
    @Test func aContainerWithAttributesOffNeitherSendsNorAppliesThemAndKeepsThoseOfOthers() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.containerSettings = ["extended_attributes = false"]
        try await cluster.start()
        try await cluster.waitConnected()

        try a.write("Documents/tagged.txt", "first")
        let tags = [("user.xdg.tags", Array("red".utf8))]
        try Self.set(a.path("Documents/tagged.txt"), tags)
        try b.write("Documents/local.txt", "beta's")
        try Self.set(b.path("Documents/local.txt"), [("user.private", Array("beta only".utf8))])
        try await waitUntil("both files on both") { a.read("Documents/local.txt") == "beta's" && b.read("Documents/tagged.txt") == "first" }
        #expect(Self.attributes(b.path("Documents/tagged.txt")) == .empty, "beta applied attributes it does not sync")
        #expect(Self.attributes(a.path("Documents/local.txt")) == .empty, "beta sent attributes it does not sync")

        try b.write("Documents/tagged.txt", "edited on beta")
        try await waitUntil("beta's edit on alpha") { a.read("Documents/tagged.txt") == "edited on beta" }
        #expect(Self.attributes(a.path("Documents/tagged.txt")) == (try ExtendedAttributes(tags.map { .init(name: $0.0, value: $0.1) })),
                "alpha's attributes did not survive beta's edit")
        #expect(Self.attributes(b.path("Documents/local.txt"))?["user.private"] != nil, "beta's own attributes were touched")
    }

    /// ext4 holds about 4 KiB of attributes per file, tmpfs more than the 64 KiB limit.
    @Test(.enabled(if: FullDiskTests.canMount, "needs root to mount a tmpfs, which holds more than 64 KiB of attributes"))
    func aSetPastTheLimitIsListedInStatusAndTheFileSyncsWithoutIt() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try FileManager.default.createDirectory(atPath: a.root, withIntermediateDirectories: true)
        try #require(try exitStatus(of: ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", a.root]) == 0, "cannot mount a tmpfs")
        defer {
            a.stop()
            _ = try? exitStatus(of: ["umount", a.root])
        }
        try await cluster.start()
        try await cluster.waitConnected()

        try a.write("Documents/huge.bin", "bytes")
        for index in 0..<40 {
            #expect(setRawAttribute(a.path("Documents/huge.bin"), "user.part\(index)", [UInt8](repeating: 1, count: 2000)) == 0)
        }
        try await waitUntil("alpha's status to list the attributes") {
            try await a.status().containers.contains { $0.notSynced?.contains { $0.path == "Documents/huge.bin" } == true }
        }
        let listed = try #require(try await a.status().containers.compactMap(\.notSynced).joined().first)
        #expect(listed.reason.contains("extended attributes") && listed.reason.contains("65536"), "\(listed.reason)")
        try await waitUntil("the file on beta") { b.read("Documents/huge.bin") == "bytes" }
        #expect(Self.attributes(b.path("Documents/huge.bin")) == .empty)

        // Back under the limit: they travel, and the entry goes.
        try Self.set(a.path("Documents/huge.bin"), [("user.part0", [UInt8](repeating: 2, count: 2000))])
        try await waitUntil("the attributes on beta") { Self.attributes(b.path("Documents/huge.bin"))?["user.part0"]?.first == 2 }
        try await waitUntil("alpha's status to drop the entry") {
            try await a.status().containers.allSatisfy { ($0.notSynced ?? []).isEmpty }
        }
    }
}
