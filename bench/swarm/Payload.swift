import Foundation
import UbiqTestSupport

/// The benchmark's one file: incompressible bytes from a seed (`SeededBytes`, as in the
/// bandwidth-limit benchmark), the same in every run and for every tool.
struct Payload: Sendable {
    let data: Data

    init(bytes count: Int, seed: UInt64) {
        data = SeededBytes.data(count, seed: seed)
    }

    var count: Int { data.count }

    /// Writes the file at `path` (beside the synced folder, on the same file system, so that a
    /// rename puts it in place at once) and flushes it, so that no writeback runs during the
    /// measurement.
    func stage(at path: String) throws {
        try data.write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
        sync()
    }

    /// Whether the file at `path` holds exactly these bytes (compared, not hashed).
    func matches(fileAt path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let piece = 4 << 20
        var offset = 0
        while offset < data.count {
            guard let read = try? handle.read(upToCount: piece), !read.isEmpty,
                  read == data[offset..<min(offset + read.count, data.count)] else { return false }
            offset += read.count
        }
        return (try? handle.read(upToCount: 1))?.isEmpty ?? true
    }
}

/// The size of the file at `path`, or nil while there is none.
func fileSize(_ path: String) -> Int? {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : nil
}
