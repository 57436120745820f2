import Foundation
import Testing
import UbiqChunking
import UbiqModel

@Suite struct FileChunkerTests {
    /// Writes `bytes` to a new file under the temp folder and returns its path.
    func writeTempFile(_ bytes: [UInt8]) throws -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = base + "/ubiq-chunker-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func fileEqualsMemory() throws {
        let data = randomBytes(count: (3 << 20) + 12345, seed: 11)
        let path = try writeTempFile(data)
        defer { unlink(path) }
        let chunker = FileChunker()
        let (chunks, size) = try chunker.chunks(ofFileAt: path)
        #expect(size == UInt64(data.count))
        #expect(chunks == chunker.chunks(of: data))
    }

    @Test func smallReadsGiveTheSameChunks() throws {
        let data = randomBytes(count: (2 << 20) + 7, seed: 12)
        let path = try writeTempFile(data)
        defer { unlink(path) }
        let small = try FileChunker(readSize: 4096).chunks(ofFileAt: path)
        #expect(small.chunks == FileChunker().chunks(of: data))
        #expect(small.size == UInt64(data.count))
    }

    @Test func chunksCoverTheFileAndHashTheirBytes() throws {
        let data = randomBytes(count: 1 << 20, seed: 13)
        let chunks = FileChunker().chunks(of: data)
        var offset: UInt64 = 0
        for chunk in chunks {
            #expect(chunk.offset == offset)
            let bytes = Array(data[Int(chunk.offset)..<Int(chunk.offset) + Int(chunk.size)])
            #expect(chunk.hash == ChunkHasher.hash(bytes))
            offset += UInt64(chunk.size)
        }
        #expect(offset == UInt64(data.count))
    }

    @Test func emptyFileHasNoChunks() throws {
        let path = try writeTempFile([])
        defer { unlink(path) }
        let result = try FileChunker().chunks(ofFileAt: path)
        #expect(result.chunks.isEmpty && result.size == 0)
    }

    @Test func missingFileIsAnIOError() {
        do {
            _ = try FileChunker().chunks(ofFileAt: "/nonexistent/ubiq-\(UUID().uuidString)")
            Issue.record("chunked a missing file")
        } catch {
            #expect(error.code == .ioError(errno: ENOENT))
        }
    }
}

@Suite struct ConcurrentChunkingTests {
    @Test func concurrentAndSequentialAgree() throws {
        let data = randomBytes(count: (5 << 20) + 999, seed: 14)
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = base + "/ubiq-chunker-\(UUID().uuidString)"
        try Data(data).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let concurrent = try FileChunker(concurrencyThreshold: 1).chunks(ofFileAt: path)
        let sequential = try FileChunker(concurrencyThreshold: nil).chunks(ofFileAt: path)
        #expect(concurrent.chunks == sequential.chunks)
        #expect(concurrent.size == UInt64(data.count) && sequential.size == UInt64(data.count))
        #expect(concurrent.chunks == FileChunker().chunks(of: data))
        // Blocks of the smallest size: many chunks are cut short by a block and carried over.
        #expect(try FileChunker(readSize: 4096, concurrencyThreshold: 1).chunks(ofFileAt: path).chunks == sequential.chunks)
    }

    @Test func concurrentEmptyFile() throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = base + "/ubiq-chunker-\(UUID().uuidString)"
        try Data().write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let result = try FileChunker(concurrencyThreshold: 0).chunks(ofFileAt: path)
        #expect(result.chunks.isEmpty && result.size == 0)
    }
}
