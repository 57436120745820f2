import Foundation
import Testing
import UbiqTestSupport

/// The tree comparison the live tests rely on tells apart names that Swift's `String ==`
/// takes for one, so a device holding one twin where another holds both is a difference.
@Suite struct TreeDigestTests {
    @Test func twinsThatDifferOnlyInNormalizationAreComparedApart() throws {
        let folder = try TempDirectory(prefix: "ubiq-digest")
        let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"
        try FileManager.default.createDirectory(atPath: folder.path + "/Documents", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: folder.path + "/Documents/" + composed, contents: Data("composed".utf8)))
        let one = try TreeDigest.of(folder.path)
        #expect(one["Documents/" + composed] != nil)
        #expect(FileManager.default.createFile(atPath: folder.path + "/Documents/" + decomposed, contents: Data("decomposed".utf8)))
        let both = try TreeDigest.of(folder.path)
        #expect(both.count == 3, "\(both)")
        #expect(both != one)
        #expect(both[TreeDigest.escaped("Documents/" + composed)] != both[TreeDigest.escaped("Documents/" + decomposed)])
        #expect(try TreeDigest.times(of: folder.path).count == 2)
    }
}
