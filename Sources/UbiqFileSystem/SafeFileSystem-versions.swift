#if canImport(Glibc)
import Glibc
#endif
import UbiqChunking
import UbiqModel

/// Conflict versions live in `.ubiq/versions/` under opaque names: the hex SHA-256 of the
/// container-relative path, `-`, and the version id in hex. Nothing a peer sends can make
/// such a name leave the folder, and all versions of one path share a prefix.
extension SafeFileSystem {
    /// Longest version id accepted, in UTF-8 bytes, so the name fits `NAME_MAX`.
    public static let maximumVersionIDLength = 64

    public static func versionName(of path: RelativePath, id: String) throws(FileSystemError) -> String {
        let idBytes = Array(id.utf8)
        guard !idBytes.isEmpty, idBytes.count <= maximumVersionIDLength else {
            throw FileSystemError(.invalidName, "version id '\(id)' must be 1 to \(maximumVersionIDLength) bytes long")
        }
        return versionPrefix(of: path) + hex(idBytes)
    }

    /// The name prefix shared by every version of `path`.
    public static func versionPrefix(of path: RelativePath) -> String {
        ChunkHasher.hash(Array(path.rawValue.utf8)).hex + "-"
    }

    /// The version id in a stored name that starts with `prefix` (``versionPrefix(of:)``);
    /// nil where the rest is not the hex of a UTF-8 id.
    public static func versionID(inName name: String, prefix: String) -> String? {
        guard name.hasPrefix(prefix) else { return nil }
        return unhex(name.utf8.dropFirst(prefix.utf8.count))
    }

    /// The absolute path of a stored version, for clients that read it directly.
    public func versionPath(of path: RelativePath, id: String) throws(FileSystemError) -> String {
        layout.versionsFolder + "/" + (try Self.versionName(of: path, id: id))
    }

    /// Moves what is at `path` (file, link or package folder) into the versions folder, e.g.
    /// the local loser of a conflict, replacing an older copy of the same version.
    public func moveToVersions(_ path: RelativePath, id: String) throws(FileSystemError) {
        let name = try Self.versionName(of: path, id: id)
        let parent = try parentFolder(of: path, create: false)
        let versions = try agentFolder(ContainerLayout.versionsName)
        guard renameat(parent.fd, String(path.name), versions.fd, name) == 0 else {
            throw FileSystemError.posix(errno, "move to versions", path.rawValue)
        }
        if fsync(versions.fd) != 0 || fsync(parent.fd) != 0 {
            logger.warning("cannot sync folders after moving a version", metadata: ["path": "\(path)"])
        }
    }

    /// Stores a finished temp file as a version of `path` (a remote loser of a conflict).
    public func commitToVersions(
        _ file: TempFile, path: RelativePath, id: String, permissions: Permissions, mtimeNs: Int64, attributes: ExtendedAttributes? = nil
    ) throws(FileSystemError) {
        let name: String
        do { name = try Self.versionName(of: path, id: id) } catch {
            discard(file)
            throw error
        }
        do throws(FileSystemError) {
            try finish(file.fd, permissions: permissions, mtimeNs: mtimeNs, attributes: attributes, display: path.rawValue)
            guard fsync(file.fd) == 0 else { throw FileSystemError.posix(errno, "fsync version of", path.rawValue) }
        } catch {
            discard(file)
            throw error
        }
        file.close()
        let temporary = try agentFolder(ContainerLayout.temporaryName)
        let versions = try agentFolder(ContainerLayout.versionsName)
        guard renameat(temporary.fd, file.name, versions.fd, name) == 0 else {
            let error = FileSystemError.posix(errno, "store version of", path.rawValue)
            unlinkat(temporary.fd, file.name, 0)
            throw error
        }
        _ = fsync(versions.fd)
    }

    /// Opens a stored version for reading; the caller closes the descriptor.
    public func openVersion(of path: RelativePath, id: String) throws(FileSystemError) -> Int32 {
        let name = try Self.versionName(of: path, id: id)
        let versions = try agentFolder(ContainerLayout.versionsName)
        let fd = openat(versions.fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open version \(id) of", path.rawValue) }
        return fd
    }

    /// Puts a stored version back at `path`, replacing what is there (resolving a conflict
    /// in the version's favour).
    public func restoreVersion(of path: RelativePath, id: String) throws(FileSystemError) {
        let name = try Self.versionName(of: path, id: id)
        let versions = try agentFolder(ContainerLayout.versionsName)
        let parent = try parentFolder(of: path, create: true)
        guard renameat(versions.fd, name, parent.fd, String(path.name)) == 0 else {
            throw FileSystemError.posix(errno, "restore version \(id) of", path.rawValue)
        }
        _ = fsync(parent.fd)
    }

    /// Deletes a stored version (file, link or package folder); `.notFound` if absent.
    public func removeVersion(of path: RelativePath, id: String) throws(FileSystemError) {
        let name = try Self.versionName(of: path, id: id)
        let versions = try agentFolder(ContainerLayout.versionsName)
        guard Posix.lstat(at: versions.fd, name) != nil else {
            throw FileSystemError(.notFound, "no version \(id) of '\(path)' is stored")
        }
        try removeTree(Posix.cName(Array(name.utf8)), in: versions.fd, display: layout.versionsFolder)
    }

    /// Every stored version's file name, with when it was last changed (ctime, ns), for
    /// sweeping out copies no item lists any more.
    public func storedVersionNames() throws(FileSystemError) -> [(name: String, changedNs: Int64)] {
        let versions = try agentFolder(ContainerLayout.versionsName)
        let (names, error) = Posix.directoryEntries(of: versions.fd)
        if let error { throw FileSystemError.posix(error, "read folder", layout.versionsFolder) }
        return names.compactMap { bytes in
            let name = String(decoding: bytes, as: UTF8.self)
            guard let info = Posix.lstat(at: versions.fd, name) else { return nil }
            return (name, Posix.nanoseconds(info.st_ctim))
        }
    }

    /// Removes the stored version with this file name (as ``storedVersionNames()`` gives it).
    public func removeStoredVersion(named name: String) throws(FileSystemError) {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw FileSystemError(.invalidName, "'\(name)' is not a stored version's name")
        }
        let versions = try agentFolder(ContainerLayout.versionsName)
        guard Posix.lstat(at: versions.fd, name) != nil else { return }
        try removeTree(Posix.cName(Array(name.utf8)), in: versions.fd, display: layout.versionsFolder)
    }

    /// The ids of the versions of `path` stored in `.ubiq/versions/`.
    public func storedVersionIDs(of path: RelativePath) throws(FileSystemError) -> Set<String> {
        let prefix = Array(Self.versionPrefix(of: path).utf8)
        let versions = try agentFolder(ContainerLayout.versionsName)
        let (names, error) = Posix.directoryEntries(of: versions.fd)
        if let error { throw FileSystemError.posix(error, "read folder", layout.versionsFolder) }
        var ids: Set<String> = []
        for name in names where name.starts(with: prefix) {
            if let id = Self.unhex(name.dropFirst(prefix.count)) { ids.insert(id) }
        }
        return ids
    }

    private static func unhex(_ digits: some Collection<UInt8>) -> String? {
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var high: UInt8?
        for digit in digits {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let h = high { bytes.append(h << 4 | value); high = nil } else { high = value }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return text
    }
}
