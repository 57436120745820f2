#if canImport(Glibc)
import Glibc
#endif
import Foundation
import UbiqModel

/// The history folder (`.ubiq/history/`): versions replaced or deleted are kept there by
/// moving or linking their inode, never by copying their bytes, except where the file has
/// other names (another name could change it in place).
extension SafeFileSystem {
    /// A fresh name for a kept version.
    public static func historyName() -> String { randomName(prefix: "h") }

    /// Moves the file at `path` into the history as `name` instead of deleting it, when it
    /// still has the stat `expected` (`.alreadyExists` otherwise). Returns false, having done
    /// nothing, where something other than a regular file is there; `.notFound` if nothing is.
    public func removeKeeping(_ path: RelativePath, as name: String, expected: FileStat?) throws(FileSystemError) -> Bool {
        let parent = try parentFolder(of: path, create: false)
        let leaf = String(path.name)
        guard let st = Posix.lstat(at: parent.fd, leaf) else { throw FileSystemError.posix(errno, "remove", path.rawValue) }
        guard Posix.kind(of: st.st_mode) == .regular else { return false }
        if let expected, FileStat(st) != expected {
            throw FileSystemError(.alreadyExists, "'\(path)' changed on disk before it could be deleted; not deleting it")
        }
        let history = try agentFolder(ContainerLayout.historyName)
        try makeDurable(leaf, in: parent.fd, display: path.rawValue)
        if st.st_nlink > 1 {
            try copyIntoHistory(leaf, in: parent.fd, as: name, history: history.fd, display: path.rawValue)
            guard unlinkat(parent.fd, leaf, 0) == 0 else {
                let code = errno
                unlinkat(history.fd, name, 0)
                throw FileSystemError.posix(code, "remove", path.rawValue)
            }
        } else {
            guard renameat(parent.fd, leaf, history.fd, name) == 0 else {
                throw FileSystemError.posix(errno, "move into the history", path.rawValue)
            }
        }
        if fsync(history.fd) != 0 || fsync(parent.fd) != 0 {
            logger.warning("cannot sync folders after keeping a version", metadata: ["path": "\(path)"])
        }
        return true
    }

    /// Copies the file at `path` into the history as `name` (sharing extents where the file
    /// system can), when it still has the stat `expected` (`.alreadyExists` otherwise): the
    /// version a client is about to change in place.
    public func copyToHistory(_ path: RelativePath, as name: String, expected: FileStat) throws(FileSystemError) {
        let parent = try parentFolder(of: path, create: false)
        let leaf = String(path.name)
        guard let st = Posix.lstat(at: parent.fd, leaf), Posix.kind(of: st.st_mode) == .regular, FileStat(st) == expected else {
            throw FileSystemError(.alreadyExists, "'\(path)' changed on disk before it could be kept; not keeping it")
        }
        let history = try agentFolder(ContainerLayout.historyName)
        try copyIntoHistory(leaf, in: parent.fd, as: name, history: history.fd, display: path.rawValue)
    }

    /// Keeps the regular file `leaf` of the open folder `parent` as `name` in the history
    /// folder `history`: a hard link, or a copy where it has other names.
    func keepReplaced(_ leaf: String, in parent: Int32, as name: String, history: Int32, display: String) throws(FileSystemError) {
        guard let st = Posix.lstat(at: parent, leaf), Posix.kind(of: st.st_mode) == .regular else {
            throw FileSystemError(.alreadyExists, "'\(display)' is no longer the file to replace; not replacing it")
        }
        if st.st_nlink > 1 {
            try copyIntoHistory(leaf, in: parent, as: name, history: history, display: display)
            return
        }
        try makeDurable(leaf, in: parent, display: display)
        guard linkat(parent, leaf, history, name, 0) == 0 else {
            throw FileSystemError.posix(errno, "keep the replaced version in the history", display)
        }
    }

    /// Flushes a file's bytes before it goes to the history: a client's last write may not be
    /// on disk yet, and a power cut would leave the history holding other bytes than it lists.
    private func makeDurable(_ leaf: String, in parent: Int32, display: String) throws(FileSystemError) {
        let fd = openat(parent, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open to keep", display) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileSystemError.posix(errno, "flush before keeping", display) }
    }

    /// Copies (in the kernel, sharing extents where the file system can) `leaf` of `parent`
    /// to `name` in the history folder.
    private func copyIntoHistory(_ leaf: String, in parent: Int32, as name: String, history: Int32, display: String) throws(FileSystemError) {
        let source = openat(parent, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard source >= 0 else { throw FileSystemError.posix(errno, "open to keep", display) }
        defer { close(source) }
        var st = stat()
        guard fstat(source, &st) == 0 else { throw FileSystemError.posix(errno, "fstat", display) }
        let copy = try makeTempFile()
        do throws(FileSystemError) {
            try copy.copy(from: source, at: 0, length: UInt64(st.st_size), to: 0)
            var times = [st.st_atim, st.st_mtim]
            _ = futimens(copy.fd, &times)
            _ = fchmod(copy.fd, st.st_mode & 0o7777)
            guard fsync(copy.fd) == 0 else { throw FileSystemError.posix(errno, "fsync", copy.path) }
            let temporary = try agentFolder(ContainerLayout.temporaryName)
            guard renameat(temporary.fd, copy.name, history, name) == 0 else {
                throw FileSystemError.posix(errno, "move into the history", display)
            }
            copy.close()
        } catch {
            discard(copy)
            throw error
        }
    }

    /// Moves a stored conflict version (`.ubiq/versions/`) into the history as `name`.
    public func moveVersionToHistory(named version: String, as name: String) throws(FileSystemError) {
        try Self.checkHistoryName(name)
        try Self.checkHistoryName(version)
        let versions = try agentFolder(ContainerLayout.versionsName)
        let history = try agentFolder(ContainerLayout.historyName)
        guard renameat(versions.fd, version, history.fd, name) == 0 else {
            throw FileSystemError.posix(errno, "move a conflict version into the history", version)
        }
        if fsync(history.fd) != 0 || fsync(versions.fd) != 0 {
            logger.warning("cannot sync folders after keeping a conflict version", metadata: ["version": "\(version)"])
        }
    }

    /// Opens a kept version for reading.
    public func openHistory(_ name: String) throws(FileSystemError) -> Int32 {
        try Self.checkHistoryName(name)
        let history = try agentFolder(ContainerLayout.historyName)
        let fd = openat(history.fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open kept version", name) }
        return fd
    }

    /// Deletes a kept version (a file, or a package's tree); nothing happens when it is not there.
    public func removeHistory(_ name: String) throws(FileSystemError) {
        try Self.checkHistoryName(name)
        let history = try agentFolder(ContainerLayout.historyName)
        if unlinkat(history.fd, name, 0) == 0 || errno == ENOENT { return }
        guard errno == EISDIR else { throw FileSystemError.posix(errno, "remove kept version", name) }
        try removeTree(Posix.cName(Array(name.utf8)), in: history.fd, display: layout.historyFolder)
    }

    /// The names in the history folder.
    public func historyNames() throws(FileSystemError) -> Set<String> {
        let history = try agentFolder(ContainerLayout.historyName)
        let (names, error) = Posix.directoryEntries(of: history.fd)
        if let error { throw FileSystemError.posix(error, "read", layout.historyFolder) }
        return Set(names.map { String(decoding: $0, as: UTF8.self) })
    }

    private static func checkHistoryName(_ name: String) throws(FileSystemError) {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw FileSystemError(.invalidName, "'\(name)' is not the name of a kept version")
        }
    }
}
