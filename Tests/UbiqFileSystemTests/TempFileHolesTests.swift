import Foundation
import Testing
import UbiqFileSystem
import UbiqModel

/// A staged file given its size first keeps the whole blocks of zeros written to it as holes,
/// and reads back exactly what was written.
@Suite struct TempFileHolesTests {
    @Test func wholeBlocksOfZerosStayHoles() throws {
        let c = try ContainerFixture()
        let file = try c.fileSystem.makeTempFile()
        defer { c.fileSystem.discard(file) }
        // 3 bytes of data, 8 MiB of zeros, 3 bytes of data; written at an offset that is not
        // a multiple of the block size.
        let bytes = Data([1, 2, 3]) + Data(count: 8 << 20) + Data([4, 5, 6])
        try file.truncate(to: UInt64(bytes.count) + 1000)
        try file.writeLeavingHoles(bytes, at: 1000)
        var info = stat()
        #expect(fstat(file.fd, &info) == 0)
        #expect(Int64(info.st_blocks) * 512 <= 64 << 10, "\(info.st_blocks * 512) bytes allocated for 6 bytes of data")
        #expect(try file.read(bytes.count, at: 1000) == bytes)
        #expect(try file.read(1000, at: 0) == Data(count: 1000))
    }
}
