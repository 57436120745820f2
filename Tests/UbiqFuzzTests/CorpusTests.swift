import Foundation
import Testing
import UbiqFuzz

/// The committed corpus (Fuzz/Corpus) as a regression test: every input that once found a
/// bug, and every seed, runs through its target again. A failure here is a crash.
@Suite struct CorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    @Test(arguments: FuzzTarget.all.map(\.name))
    func committedInputsRun(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let count = try CorpusReplay.run(target, paths: [Self.corpus.appendingPathComponent(name).path])
        #expect(count > 0)
    }

    /// Seeds are made by the current code, so a format change cannot leave them stale unnoticed.
    @Test(arguments: FuzzTarget.all.map(\.name))
    func freshSeedsRun(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let seeds = try target.seeds()
        #expect(!seeds.isEmpty)
        for seed in seeds { target.run(seed.bytes) }
    }
}
