#if canImport(Glibc)
import Glibc
#endif
import Logging
import UbiqModel

extension SafeFileSystem {
    /// Moves a finished temp file to `path` atomically: sets its permissions (exactly, whatever
    /// the umask) and mtime, makes its data
    /// durable, creates missing parent folders, renames it over whatever file was there, and
    /// makes the rename durable. On failure the temp file is deleted.
    ///
    /// Returns the stat facts to record as the scan baseline (the rename changed the ctime).
    @discardableResult
    public func commit(_ file: TempFile, to path: RelativePath, permissions: Permissions, mtimeNs: Int64,
                       attributes: ExtendedAttributes? = nil) throws(FileSystemError) -> FileStat {
        let result = commit([PendingCommit(file: file, path: path, permissions: permissions, mtimeNs: mtimeNs, attributes: attributes)])
        removeReplaced(result.replaced)
        if let error = result.failures[path] { throw error }
        return result.committed[path]!
    }

    /// Commits many files with one flush of the file system instead of one per file (for
    /// bursts of small files): every file's data is durable before any of them appears, and
    /// each folder is synced once. Each temp file holds a descriptor until it is committed, so
    /// keep batches to a few hundred files.
    public func commit(_ batch: [PendingCommit]) -> CommitResult {
        var result = CommitResult()
        var prepared: [(item: PendingCommit, stat: FileStat)] = []
        for item in batch {
            do throws(FileSystemError) {
                prepared.append((item, try prepare(item)))
            } catch {
                result.failures[item.path] = error
                discard(item.file)
            }
        }
        if prepared.count >= 8, LinuxCalls.syncFileSystem(prepared[0].item.file.fd) {
            for entry in prepared { entry.item.file.close() }
        } else {
            prepared = prepared.filter { entry in
                guard fsync(entry.item.file.fd) == 0 else {
                    result.failures[entry.item.path] = .posix(errno, "fsync", entry.item.file.path)
                    discard(entry.item.file)
                    return false
                }
                entry.item.file.close()
                return true
            }
        }
        guard !prepared.isEmpty else { return result }

        let temporary: OwnedDescriptor
        do {
            temporary = try agentFolder(ContainerLayout.temporaryName)
        } catch {
            for entry in prepared {
                result.failures[entry.item.path] = error
                discard(entry.item.file)
            }
            return result
        }
        // One parent folder open at a time, synced once after its last rename; across many
        // folders one flush of the file system after all renames is cheaper.
        let byParent = Dictionary(grouping: prepared) { $0.item.path.parent?.rawValue ?? "" }
        let flushOnce = byParent.count >= 8 && LinuxCalls.canSyncFileSystem
        for key in byParent.keys.sorted() {
            let group = byParent[key]!
            let parent: OwnedDescriptor
            do {
                parent = try parentFolder(of: group[0].item.path, create: true)
            } catch {
                for entry in group {
                    result.failures[entry.item.path] = error
                    unlinkat(temporary.fd, entry.item.file.name, 0)
                }
                continue
            }
            for (item, stat) in group {
                let name = String(item.path.name)
                var keptAs: String?
                do throws(FileSystemError) {
                    try checkReplacing(item, name: name, in: parent.fd)
                    if let keep = item.keepReplacedAs, item.replacing != .nothing {
                        let history = try agentFolder(ContainerLayout.historyName)
                        try keepReplaced(name, in: parent.fd, as: keep, history: history.fd, display: item.path.rawValue)
                        keptAs = keep
                    } else if let old = Posix.lstat(at: parent.fd, name), Posix.kind(of: old.st_mode) == .regular,
                              Int64(old.st_size) >= Self.deferredRemovalSize {
                        // Renaming over a large file frees its blocks then and there (0.17 s
                        // for 512 MiB on ext4): keep a link to it, to be removed later.
                        let keep = Self.randomName(prefix: "r")
                        if linkat(parent.fd, name, temporary.fd, keep, 0) == 0 { result.replaced.append(keep) }
                    }
                    beforeRename?(item.path)
                    try rename(item, name: name, from: temporary.fd, to: parent.fd)
                } catch {
                    result.failures[item.path] = error
                    unlinkat(temporary.fd, item.file.name, 0)
                    if let keptAs, let history = try? agentFolder(ContainerLayout.historyName) { unlinkat(history.fd, keptAs, 0) }
                    continue
                }
                result.committed[item.path] = Self.baseline(after: stat, name: name, in: parent.fd)
            }
            if !flushOnce, fsync(parent.fd) != 0 {
                logger.warning("cannot sync folder", metadata: ["path": "\(key)", "errno": "\(errno)"])
            }
        }
        if flushOnce, !LinuxCalls.syncFileSystem(temporary.fd) {
            logger.warning("cannot flush the file system after renames", metadata: ["errno": "\(errno)"])
        }
        return result
    }

    /// Throws `.alreadyExists` where `item.replacing` asks for the file the engine last saw and
    /// another is there. Checked before the replaced file is kept: keeping it (a new link)
    /// moves its ctime.
    private func checkReplacing(_ item: PendingCommit, name: String, in parent: Int32) throws(FileSystemError) {
        guard case .unchanged(let seen) = item.replacing else { return }
        guard let current = Posix.lstat(at: parent, name), FileStat(current) == seen else {
            throw FileSystemError(.alreadyExists, "'\(item.path)' changed on disk before it could be replaced; not replacing it")
        }
    }

    /// Renames a prepared temp file into place; only where nothing is for `.nothing`.
    private func rename(_ item: PendingCommit, name: String, from temporary: Int32, to parent: Int32) throws(FileSystemError) {
        if item.replacing == .nothing {
            try renameNew(item.file.name, from: temporary, to: parent, name: name, path: item.path)
            return
        }
        guard renameat(temporary, item.file.name, parent, name) == 0 else {
            throw FileSystemError.posix(errno, "rename into place", item.path.rawValue)
        }
    }

    /// Replaced files at least this large are removed after the commit, not during it.
    static let deferredRemovalSize: Int64 = 32 << 20

    /// Removes what `commit` kept of the large files it replaced.
    public func removeReplaced(_ names: [String]) {
        guard !names.isEmpty, let folder = try? agentFolder(ContainerLayout.temporaryName) else { return }
        for name in names where name.hasPrefix("r-") && !name.contains("/") { unlinkat(folder.fd, name, 0) }
    }

    /// The stat to record for a file just renamed into place: the inode and mtime it had as a
    /// temp file, with the ctime the rename gave it. If anyone touched it since, the mtime or
    /// inode on disk will differ and the next scan rehashes it.
    static func baseline(after stat: FileStat, name: String, in folder: Int32) -> FileStat {
        var result = stat
        if let st = Posix.lstat(at: folder, name), UInt64(st.st_ino) == stat.inode {
            result.ctimeNs = Posix.nanoseconds(st.st_ctim)
        }
        return result
    }

    private func prepare(_ item: PendingCommit) throws(FileSystemError) -> FileStat {
        try finish(item.file.fd, permissions: item.permissions, mtimeNs: item.mtimeNs, attributes: item.attributes, display: item.path.rawValue,
                   replacing: item.path)
        var st = stat()
        guard fstat(item.file.fd, &st) == 0 else { throw FileSystemError.posix(errno, "fstat", item.file.path) }
        return FileStat(st)
    }

    // MARK: - Folders and links

    /// Creates a folder and any missing parents; an existing folder is fine. Sets its
    /// permissions, `user.` extended attributes and mtime when given. Returns its stat facts.
    @discardableResult
    public func makeDirectory(_ path: RelativePath, permissions: Permissions? = nil, attributes: ExtendedAttributes? = nil,
                              mtimeNs: Int64? = nil) throws(FileSystemError) -> FileStat {
        let parent = try parentFolder(of: path, create: true)
        let name = String(path.name)
        if mkdirat(parent.fd, name, 0o777) != 0 {
            let code = errno
            guard code == EEXIST, let st = Posix.lstat(at: parent.fd, name) else {
                throw FileSystemError.posix(code, "create folder", path.rawValue)
            }
            guard Posix.kind(of: st.st_mode) == .directory else {
                throw FileSystemError(.alreadyExists, "'\(path)' exists and is not a folder")
            }
        }
        let attributes = ignoresAttributes ? nil : attributes
        if permissions != nil || attributes != nil {
            // Through a descriptor of the folder itself: a name could be swapped for a link.
            let folder = openat(parent.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { throw FileSystemError.posix(errno, "open folder", path.rawValue) }
            defer { close(folder) }
            if let attributes { try write(attributes, to: folder, display: path.rawValue) }
            if let permissions, !ignoresPermissions {
                guard fchmod(folder, mode_t(permissions.bits)) == 0 else { throw FileSystemError.posix(errno, "chmod", path.rawValue) }
            }
        }
        if let mtimeNs { try setTimes(name, in: parent.fd, mtimeNs: mtimeNs, display: path.rawValue) }
        return try statFacts(name, in: parent.fd, display: path.rawValue)
    }

    /// Creates or replaces a symbolic link atomically (made in `.ubiq/tmp/`, then renamed).
    /// The link text is stored as given and never followed here. Returns its stat facts.
    @discardableResult
    public func makeSymlink(_ path: RelativePath, target: String, mtimeNs: Int64? = nil) throws(FileSystemError) -> FileStat {
        let temporary = try agentFolder(ContainerLayout.temporaryName)
        let name = Self.randomName(prefix: "l")
        guard symlinkat(target, temporary.fd, name) == 0 else {
            throw FileSystemError.posix(errno, "create link for", path.rawValue)
        }
        do throws(FileSystemError) {
            if let mtimeNs { try setTimes(name, in: temporary.fd, mtimeNs: mtimeNs, display: path.rawValue) }
            let parent = try parentFolder(of: path, create: true)
            guard renameat(temporary.fd, name, parent.fd, String(path.name)) == 0 else {
                throw FileSystemError.posix(errno, "rename link into place", path.rawValue)
            }
            return try statFacts(String(path.name), in: parent.fd, display: path.rawValue)
        } catch {
            unlinkat(temporary.fd, name, 0)
            throw error
        }
    }

    /// Moves a file, link or folder inside the container, creating the destination's missing
    /// parents. Unless `replacing`, an existing destination is left alone (`.alreadyExists`).
    public func rename(from source: RelativePath, to destination: RelativePath, replacing: Bool = false) throws(FileSystemError) {
        let from = try parentFolder(of: source, create: false)
        let to = try parentFolder(of: destination, create: true)
        let fromName = String(source.name), toName = String(destination.name)
        if replacing {
            guard renameat(from.fd, fromName, to.fd, toName) == 0 else {
                throw FileSystemError.posix(errno, "rename", source.rawValue)
            }
            return
        }
        if LinuxCalls.renameNoReplace(from.fd, fromName, to.fd, toName) == 0 { return }
        let code = errno
        guard code == EINVAL || code == ENOSYS else {
            throw FileSystemError.posix(code, "rename", source.rawValue + "' to '" + destination.rawValue)
        }
        // The file system cannot refuse to replace: check, then rename (a small race).
        if Posix.lstat(at: to.fd, toName) != nil {
            throw FileSystemError(.alreadyExists, "'\(destination)' already exists; not replacing it")
        }
        guard renameat(from.fd, fromName, to.fd, toName) == 0 else {
            throw FileSystemError.posix(errno, "rename", source.rawValue)
        }
    }

    func statFacts(_ name: String, in folder: Int32, display: String) throws(FileSystemError) -> FileStat {
        guard let st = Posix.lstat(at: folder, name) else { throw FileSystemError.posix(errno, "lstat", display) }
        return FileStat(st)
    }

    func setTimes(_ name: String, in folder: Int32, mtimeNs: Int64, display: String) throws(FileSystemError) {
        let time = Posix.timespec(nanoseconds: mtimeNs)
        guard utimensat(folder, name, [time, time], AT_SYMLINK_NOFOLLOW) == 0 else {
            throw FileSystemError.posix(errno, "set mtime of", display)
        }
    }
}
