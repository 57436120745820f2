import UbiqModel

/// The change-log files of a container, as a record store reads and writes them: the
/// agent's own file system at the edge (`RecordLogFilesOnDisk`). Logs travel between
/// devices as ordinary files of the container.
public protocol RecordLogFiles: Sendable {
    /// Creates the log at `path`, whole and durable before it appears; fails where a file is
    /// there already (a log is never replaced).
    func createLog(_ bytes: [UInt8], at path: RelativePath) throws
    /// The log at `path`, at most `limit` bytes.
    func readLog(at path: RelativePath, limit: Int) throws -> [UInt8]
    /// Writes the file at `path` whole and durable, over the one there if any (a device's
    /// acknowledgement, a baseline).
    func replaceFile(_ bytes: [UInt8], at path: RelativePath) throws
    /// Removes the file at `path` (a log or baseline a baseline replaced); nothing where none is.
    func removeFile(at path: RelativePath) throws
    /// The names in the folder at `path` (none where there is no folder).
    func names(in path: RelativePath) throws -> [String]
}
