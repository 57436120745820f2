import Foundation
import Synchronization
import Testing
import UbiqChunking
import UbiqModel
import UbiqTestSupport

/// Chunking steps over a sparse file's holes (SEEK_DATA/SEEK_HOLE) and still gives exactly
/// the chunks that reading every byte gives.
@Suite struct SparseChunkingTests {
    /// Data pieces at `offsets` in a file of `size` bytes whose other bytes are holes; the
    /// path and the same bytes in memory (only for sizes that fit).
    static func sparseFile(size: UInt64, pieces: [(offset: UInt64, count: Int)]) throws -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = base + "/ubiq-sparse-\(UUID().uuidString)"
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(ftruncate(fd, off_t(size)) == 0)
        for (index, piece) in pieces.enumerated() {
            let bytes = randomBytes(count: piece.count, seed: 70 + UInt64(index))
            try #require(bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(piece.offset)) } == piece.count)
        }
        return path
    }

    static func allocated(_ path: String) -> Int64 {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_blocks) * 512 : -1
    }

    /// Holes shorter than, equal to and longer than the largest chunk, between and after data
    /// pieces of odd sizes, on both the one-thread and the two-thread path.
    @Test(arguments: [nil, 1 << 20] as [Int?])
    func aSparseFileGivesTheChunksOfItsBytes(concurrencyThreshold: Int?) throws {
        let size: UInt64 = 40 << 20
        let path = try Self.sparseFile(size: size, pieces: [
            (0, 100_000), (300 << 10, 5000), (560 << 10, 70_000), (9 << 20, 1 << 20), (12 << 20, 333), (30 << 20, 2 << 20),
        ])
        defer { unlink(path) }
        #expect(Self.allocated(path) < 8 << 20, "the test's file is not sparse here")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let chunker = FileChunker(concurrencyThreshold: concurrencyThreshold)
        let (chunks, read) = try chunker.chunks(ofFileAt: path)
        #expect(read == size)
        #expect(chunks == chunker.chunks(of: bytes))
    }

    /// A file that ends in data after a long hole, and one that is a hole only.
    @Test func filesEndingInDataAndHolesOnly() throws {
        for pieces in [[(offset: UInt64((20 << 20) - 1000), count: 1000)], []] {
            let path = try Self.sparseFile(size: 20 << 20, pieces: pieces)
            defer { unlink(path) }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            for threshold in [nil, 1 << 20] as [Int?] {
                let chunker = FileChunker(concurrencyThreshold: threshold)
                #expect(try chunker.chunks(ofFileAt: path).chunks == chunker.chunks(of: bytes))
            }
        }
    }

    /// What the chunks of a terabyte of holes showed, found on the chunking thread: going
    /// through a million chunks unoptimised takes seconds, which a pool thread must not spend.
    struct TerabyteChunks: Sendable {
        let read: UInt64
        let startsAtZero: Bool
        let contiguous: Bool
        let end: UInt64?
        let chunks: Int
        let zeroChunks: Int
    }

    /// A terabyte that is nearly all hole is chunked without reading it: reading and hashing
    /// it would take hours here. (Chunking cannot be cancelled, so it runs on a thread of its
    /// own that the test stops waiting for.)
    @Test func aTerabyteOfHoleIsNotRead() async throws {
        let size: UInt64 = 1 << 40
        let path = try Self.sparseFile(size: size, pieces: [(0, 300_000), (size / 2, 300_000), (size - 1000, 1000)])
        let outcome = Mutex<Result<TerabyteChunks, ChunkingError>?>(nil)
        Thread {
            let result = Result { () throws(ChunkingError) in
                let (chunks, read) = try FileChunker().chunks(ofFileAt: path)
                return TerabyteChunks(
                    read: read, startsAtZero: chunks.first?.offset == 0,
                    contiguous: zip(chunks, chunks.dropFirst()).allSatisfy { $0.offset + UInt64($0.size) == $1.offset },
                    end: chunks.last.map { $0.offset + UInt64($0.size) },
                    chunks: chunks.count, zeroChunks: chunks.filter { ZeroChunks.isZeros($0) }.count)
            }
            unlink(path)
            outcome.withLock { $0 = result }
        }.start()
        try await waitUntil("chunking a terabyte of holes (more than a minute: the holes were read)", every: .milliseconds(20)) {
            outcome.withLock { $0 != nil }
        }
        let chunks = try #require(outcome.withLock { $0 }).get()
        #expect(chunks.read == size)
        #expect(chunks.startsAtZero)
        #expect(chunks.contiguous)
        #expect(chunks.end == size)
        #expect(chunks.zeroChunks > chunks.chunks - 20)
    }
}
