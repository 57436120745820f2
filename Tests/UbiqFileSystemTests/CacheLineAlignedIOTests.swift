import Foundation
import Testing
@testable import UbiqFileSystem
import UbiqModel

/// Runs whose copy would be the kernel's slow one go through the bounce buffer; reads hand
/// out memory placed like their offset. Bytes must not change either way.
@Suite struct CacheLineAlignedIOTests {
    @Test func onlyADestinationJustAheadOfTheSourceIsAShortDistance() {
        let page = UnsafeRawPointer(bitPattern: 1 << 20)!
        #expect(!CacheLineAlignedIO.isShortDistance(from: page + 57, to: 57))
        #expect(CacheLineAlignedIO.isShortDistance(from: page + 56, to: 57))
        #expect(CacheLineAlignedIO.isShortDistance(from: page + 4095, to: (3 << 12) + 62))
        #expect(!CacheLineAlignedIO.isShortDistance(from: page, to: 64))
        #expect(!CacheLineAlignedIO.isShortDistance(from: page + 58, to: 57))
    }

    /// Lengths around the bounce buffer's size, from memory at page offsets that put the
    /// later runs' destinations just ahead of their sources (the bounced case) and not.
    @Test(arguments: [(0, 0), (57, 7), (57, 56), (1, 0), (4095, 4090), (60, 4095)])
    func runsAtAnyDistanceAreWrittenAndReadBackExactly(offsetShift: Int, memoryShift: Int) throws {
        let c = try ContainerFixture()
        let file = try c.fileSystem.makeTempFile()
        defer { c.fileSystem.discard(file) }
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        var expected = [UInt8](repeating: 0, count: offsetShift)
        var offset = UInt64(offsetShift)
        for length in [CacheLineAlignedIO.piece - 1, CacheLineAlignedIO.piece, 3 * CacheLineAlignedIO.piece + 17, 1000] {
            let bytes = Array(random.readData(ofLength: length))
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: length + 4096, alignment: 4096)
            defer { storage.deallocate() }
            let placed = UnsafeMutableRawBufferPointer(rebasing: storage[memoryShift..<(memoryShift + length)])
            placed.copyBytes(from: bytes)
            try file.write(UnsafeRawBufferPointer(placed), at: offset)
            expected += bytes
            offset += UInt64(length)
        }
        for (start, count) in [(0, expected.count), (offsetShift + 3, CacheLineAlignedIO.piece + 5), (expected.count - 1, 1)] {
            let read = try CacheLineAlignedIO.read(file.fd, at: UInt64(start), count: count, path: file.path)
            #expect(read.count == count)
            #expect(read.elementsEqual(expected[start..<(start + count)]))
            if count > 64 {  // `Data` keeps a few bytes inline, wherever it likes
                read.withUnsafeBytes { #expect(Int(bitPattern: $0.baseAddress!) % 64 == start % 64) }
            }
        }
    }

    @Test func readingPastTheEndSaysTheFileChanged() throws {
        let c = try ContainerFixture()
        let file = try c.fileSystem.makeTempFile()
        defer { c.fileSystem.discard(file) }
        try file.write(Array(repeating: 1, count: 100), at: 0)
        #expect(throws: FileSystemError.self) {
            try CacheLineAlignedIO.read(file.fd, at: 50, count: 51, path: file.path)
        }
    }
}
