import Testing
import UbiqModel
import UbiqWire

/// Word of pieces held travels whole, in messages of bounded size, and a bad one is refused.
@Suite struct ChunkProgressMappingTests {
    let version = SwarmVersion(container: try! ContainerID("ubiq.drive"), path: try! RelativePath("big/file.bin"),
                               contentKey: String(repeating: "ab", count: 32), size: 1 << 30)

    @Test func progressSurvivesItsEncodingAndLongWordIsSplit() throws {
        var held = RangeSet<UInt64>()
        for i in 0..<UInt64(1_200) { held.insert(contentsOf: i * 1000..<(i * 1000 + 500)) }
        let progress = SwarmProgress(version: version, held: held, ended: true)
        let messages = ChunkProgressMapping.messages(progress)
        #expect(messages.map(\.held.count) == [512, 512, 176])
        #expect(messages.map(\.ended) == [false, false, true])
        var back = RangeSet<UInt64>()
        for message in messages { back.formUnion(try ChunkProgressMapping.progress(message).held) }
        #expect(back == held)
        let one = SwarmProgress(version: version, held: RangeSet(0..<4096), claimed: RangeSet(8192..<16384))
        #expect(try ChunkProgressMapping.messages(one).map { try ChunkProgressMapping.progress($0) } == [one])
    }

    @Test func badWordIsRefused() {
        let good = ChunkProgressMapping.messages(SwarmProgress(version: version, held: RangeSet(0..<10)))[0]
        var badKey = good
        badKey.contentKey = String(repeating: "AB", count: 32)
        var outside = good
        outside.held[0].end = version.size + 1
        var empty = good
        empty.held[0].end = empty.held[0].start
        var escaping = good
        escaping.path = "../../etc/passwd"
        var tooMany = good
        tooMany.held = (0..<UInt64(513)).map { i in Ubiq_Wire_ByteRange.with { $0.start = i * 2; $0.end = i * 2 + 1 } }
        for message in [badKey, outside, empty, escaping, tooMany] {
            #expect(throws: WireError.self) { try ChunkProgressMapping.progress(message) }
        }
        #expect((try? ChunkProgressMapping.progress(good)) != nil)
    }
}
