import Testing
import UbiqChunking

@Suite struct ChunkerParametersTests {
    @Test func defaultsMatchTheDesign() {
        let p = ChunkerParameters.default
        #expect(p.minimumSize == 16 << 10 && p.averageSize == 64 << 10 && p.maximumSize == 256 << 10)
        #expect(p.normalizationLevel == 2)
    }

    @Test func refusesBadBounds() {
        #expect(throws: ChunkingError.self) { try ChunkerParameters(minimumSize: 100, averageSize: 64, maximumSize: 1000) }
        #expect(throws: ChunkingError.self) { try ChunkerParameters(minimumSize: 1024, averageSize: 3000, maximumSize: 8192) }
        #expect(throws: ChunkingError.self) { try ChunkerParameters(minimumSize: 1024, averageSize: 4096, maximumSize: 4096) }
        do {
            _ = try ChunkerParameters(minimumSize: 1024, averageSize: 4096, maximumSize: 8192, normalizationLevel: 12)
            Issue.record("accepted a normalization level larger than the mask")
        } catch {
            #expect(error.code == .invalidParameters)
        }
    }
}
