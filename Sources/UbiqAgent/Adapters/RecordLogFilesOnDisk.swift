import Foundation
import UbiqFileSystem
import UbiqModel
import UbiqSync

/// A container's change-log files on disk, through ``SafeFileSystem``: created whole and
/// durable under a new name, read without following a link and up to a limit.
struct RecordLogFilesOnDisk: RecordLogFiles {
    let files: SafeFileSystem

    func createLog(_ bytes: [UInt8], at path: RelativePath) throws {
        try files.createFile(path, bytes: bytes, mtimeNs: Int64(Date().timeIntervalSince1970 * 1_000_000_000))
    }

    func readLog(at path: RelativePath, limit: Int) throws -> [UInt8] {
        try files.readFile(path, limit: limit)
    }

    func replaceFile(_ bytes: [UInt8], at path: RelativePath) throws {
        try files.replaceFile(path, bytes: bytes, mtimeNs: Int64(Date().timeIntervalSince1970 * 1_000_000_000))
    }

    func removeFile(at path: RelativePath) throws {
        do { try files.remove(path) } catch where error.code == .notFound {}
    }

    func names(in path: RelativePath) throws -> [String] {
        try files.names(in: path)
    }
}
