#if canImport(Glibc)
import Glibc
#endif
import Foundation
import UbiqModel

/// Small files the agent itself writes into the container and reads back (a record store's
/// change logs): written whole and durable before they appear, never over another file;
/// read without following a link and only up to a limit.
extension SafeFileSystem {
    /// Creates `path` holding `bytes` (mode 0644), made durable first; `.alreadyExists`
    /// where something is there. Missing folders are created.
    @discardableResult
    public func createFile(_ path: RelativePath, bytes: [UInt8], mtimeNs: Int64) throws(FileSystemError) -> FileStat {
        let file = try makeTempFile()
        do throws(FileSystemError) { try file.write(bytes, at: 0) } catch {
            discard(file)
            throw error
        }
        return try commitNew(file, to: path, permissions: Permissions(mode: 0o644, kind: .file), mtimeNs: mtimeNs)
    }

    /// Writes `path` holding `bytes` (mode 0644), made durable first, over the file there if
    /// any; missing folders are created.
    @discardableResult
    public func replaceFile(_ path: RelativePath, bytes: [UInt8], mtimeNs: Int64) throws(FileSystemError) -> FileStat {
        let file = try makeTempFile()
        do throws(FileSystemError) { try file.write(bytes, at: 0) } catch {
            discard(file)
            throw error
        }
        return try commit(file, to: path, permissions: Permissions(mode: 0o644, kind: .file), mtimeNs: mtimeNs)
    }

    /// The whole file at `path`; `.invalidName` where it is larger than `limit` bytes or is
    /// not a regular file.
    public func readFile(_ path: RelativePath, limit: Int) throws(FileSystemError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .posix(errno, "fstat", path.rawValue) }
        guard Posix.kind(of: st.st_mode) == .regular, st.st_size <= limit else {
            throw FileSystemError(.invalidName, "'\(path)' is not a regular file of at most \(limit) bytes")
        }
        return Array(try CacheLineAlignedIO.read(fd, at: 0, count: Int(st.st_size), path: path.rawValue))
    }

    /// The names of the entries of the folder at `path` that are text, sorted; none where
    /// no folder is there.
    public func names(in path: RelativePath) throws(FileSystemError) -> [String] {
        let folder: OwnedDescriptor
        do {
            let parent = try parentFolder(of: path, create: false)
            folder = try openFolder(String(path.name), in: parent.fd, create: false, display: path.rawValue)
        } catch where error.code == .notFound {
            return []
        }
        let (names, failure) = Posix.directoryEntries(of: folder.fd)
        if let failure { throw .posix(failure, "list", path.rawValue) }
        return names.compactMap { String(validating: $0, as: UTF8.self) }.sorted()
    }
}
