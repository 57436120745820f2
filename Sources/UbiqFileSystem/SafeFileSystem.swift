#if canImport(Glibc)
import Glibc
#endif
import Logging
import UbiqModel

/// Changes files in one container without ever writing outside it: every parent folder is
/// opened step by step with `O_NOFOLLOW | O_DIRECTORY`, so a symbolic link planted in a path
/// (by a user or a peer) is refused instead of followed. Files appear only complete, by
/// rename from `.ubiq/tmp/`, and are made durable before they appear.
public struct SafeFileSystem: Sendable {
    public let layout: ContainerLayout
    let logger: Logger
    /// Called for each file after its temp file is durable and just before it is renamed
    /// into place; tests stop the agent here to show that a crash at that step loses nothing.
    public var beforeRename: (@Sendable (RelativePath) -> Void)?
    /// Called for a package once its staged tree is durable, just before the exchange, and
    /// just after it (tests stop the agent at either).
    public var beforeExchange: (@Sendable (RelativePath) -> Void)?
    public var afterExchange: (@Sendable (RelativePath) -> Void)?
    /// `ignore_permissions`: the permissions given are not applied. A new file gets 0644, a
    /// replaced one keeps the mode of the file it replaces, a file changed in place and a
    /// folder keep theirs; on a file system that cannot hold them, nothing is refused.
    public var ignoresPermissions = false
    /// `extended_attributes = false`: the attributes given are not written, and those a file
    /// or folder has stay as they are.
    public var ignoresAttributes = false

    public init(layout: ContainerLayout, logger: Logger) {
        self.layout = layout
        self.logger = logger
    }

    // MARK: - Opening folders without following links

    func openRoot() throws(FileSystemError) -> OwnedDescriptor {
        let fd = open(layout.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open container root", layout.root) }
        return OwnedDescriptor(fd)
    }

    /// Opens `name` inside `parent` as a real folder, creating it if asked.
    func openFolder(_ name: String, in parent: Int32, create: Bool, display: String) throws(FileSystemError) -> OwnedDescriptor {
        var fd = openat(parent, name, Posix.directoryFlags)
        if fd < 0 && errno == ENOENT && create {
            if mkdirat(parent, name, 0o777) != 0 && errno != EEXIST {
                throw FileSystemError.posix(errno, "create folder", display)
            }
            fd = openat(parent, name, Posix.directoryFlags)
        }
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP || code == ENOTDIR, let st = Posix.lstat(at: parent, name) {
                if Posix.kind(of: st.st_mode) == .symlink {
                    throw FileSystemError(.escapesContainer,
                        "'\(display)' is a symbolic link; ubiq never follows links in parent folders. Replace it with a real folder")
                }
                throw FileSystemError(.notADirectory, "'\(display)' is not a folder")
            }
            throw FileSystemError.posix(code, "open folder", display)
        }
        return OwnedDescriptor(fd)
    }

    /// The folder that holds `path`, opened without following links; missing folders are
    /// created when `create` is set.
    func parentFolder(of path: RelativePath, create: Bool) throws(FileSystemError) -> OwnedDescriptor {
        var folder = try openRoot()
        var display = ""
        for component in path.components.dropLast() {
            display += display.isEmpty ? String(component) : "/" + component
            folder = try openFolder(String(component), in: folder.fd, create: create, display: display)
        }
        return folder
    }

    /// A folder inside `.ubiq/` (`tmp` or `versions`), created if missing.
    func agentFolder(_ name: String) throws(FileSystemError) -> OwnedDescriptor {
        let root = try openRoot()
        let agent = try openFolder(RelativePath.agentFolder, in: root.fd, create: true, display: RelativePath.agentFolder)
        return try openFolder(name, in: agent.fd, create: true, display: RelativePath.agentFolder + "/" + name)
    }

    // MARK: - Temp files

    /// Creates an empty temp file (mode 0600) in `.ubiq/tmp/`.
    public func makeTempFile() throws(FileSystemError) -> TempFile {
        let folder = try agentFolder(ContainerLayout.temporaryName)
        while true {
            let name = Self.randomName(prefix: "t")
            let fd = openat(folder.fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { return TempFile(fd: fd, name: name, path: layout.temporaryFolder + "/" + name) }
            if errno != EEXIST { throw FileSystemError.posix(errno, "create temp file in", layout.temporaryFolder) }
        }
    }

    /// The partly written file kept for the content named `key` (hex), created where there is
    /// none, with whether it was there already; nil while another writer holds it (an
    /// exclusive `flock`, which a killed process gives up). Closing it keeps it.
    public func openPartialFile(key: String) throws(FileSystemError) -> (file: TempFile, resumed: Bool)? {
        guard !key.isEmpty, key.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw FileSystemError(.invalidName, "'\(key)' is not a content key")
        }
        let folder = try agentFolder(ContainerLayout.temporaryName)
        let name = Self.partialPrefix + key
        let fd = openat(folder.fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open partial file in", layout.temporaryFolder) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            return nil
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw FileSystemError.posix(code, "fstat", layout.temporaryFolder + "/" + name)
        }
        return (TempFile(fd: fd, name: name, path: layout.temporaryFolder + "/" + name), st.st_size > 0)
    }

    /// Closes a temp file and leaves it where it is: a partial file for a later attempt.
    public func closeAndKeep(_ file: TempFile) {
        file.close()
    }

    /// Deletes the partial files no writer holds: nothing is to be fetched into them.
    public func removePartialFiles() {
        guard let folder = try? agentFolder(ContainerLayout.temporaryName) else { return }
        for name in Posix.directoryEntries(of: folder.fd).0 where name.starts(with: Array(Self.partialPrefix.utf8)) {
            let fd = openat(folder.fd, Posix.cName(name), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlinkat(folder.fd, Posix.cName(name), 0) }
            Glibc.close(fd)
        }
    }

    static let partialPrefix = "p-"

    /// Closes and deletes a temp file that will not be committed.
    public func discard(_ file: TempFile) {
        file.close()
        if let folder = try? agentFolder(ContainerLayout.temporaryName) {
            unlinkat(folder.fd, file.name, 0)
        }
    }

    /// Deletes everything left in `.ubiq/tmp/` (by a crash), but partial files when
    /// `keepingPartials`; call at start, before any writer.
    public func removeTemporaryFiles(keepingPartials: Bool = false) throws(FileSystemError) {
        let folder = try agentFolder(ContainerLayout.temporaryName)
        let (names, error) = Posix.directoryEntries(of: folder.fd)
        if let error { throw FileSystemError.posix(error, "read folder", layout.temporaryFolder) }
        for name in names where !(keepingPartials && name.starts(with: Array(Self.partialPrefix.utf8))) {
            try removeTree(Posix.cName(name), in: folder.fd, display: layout.temporaryFolder)
        }
    }

    static func randomName(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        return prefix + "-" + String(getpid()) + "-" + String(value, radix: 16)
    }

    // MARK: - Reading

    /// The `lstat` facts of what is at `path` (nil where nothing is), found without following
    /// any link in its parent folders.
    public func fileStat(of path: RelativePath) -> FileStat? {
        guard let parent = try? parentFolder(of: path, create: false),
              let st = Posix.lstat(at: parent.fd, String(path.name))
        else { return nil }
        return FileStat(st)
    }

    /// Opens a file of the container for reading without following any link; the caller closes it.
    public func openForReading(_ path: RelativePath) throws(FileSystemError) -> Int32 {
        let parent = try parentFolder(of: path, create: false)
        let fd = openat(parent.fd, String(path.name), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP {
                throw FileSystemError(.escapesContainer, "'\(path)' is a symbolic link, not a file")
            }
            throw FileSystemError.posix(code, "open", path.rawValue)
        }
        return fd
    }
}
