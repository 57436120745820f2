#if canImport(Glibc)
import Glibc
#endif
import Logging
import UbiqModel

extension SafeFileSystem {
    /// Moves a finished temp file to `path` atomically: sets its mode and mtime, makes its data
    /// durable, creates missing parent folders, renames it over whatever file was there, and
    /// makes the rename durable. On failure the temp file is deleted.
    public func commit(_ file: TempFile, to path: RelativePath, executable: Bool, mtimeNs: Int64) throws(FileSystemError) {
        let failures = commit([PendingCommit(file: file, path: path, executable: executable, mtimeNs: mtimeNs)])
        if let error = failures[path] { throw error }
    }

    /// Commits many files with one flush of the file system instead of one per file (for
    /// bursts of small files): every file's data is durable before any of them appears, and
    /// each folder is synced once. Returns the paths that failed, with why; the others are in place.
    public func commit(_ batch: [PendingCommit]) -> [RelativePath: FileSystemError] {
        var failures: [RelativePath: FileSystemError] = [:]
        var prepared: [PendingCommit] = []
        for item in batch {
            do throws(FileSystemError) {
                try prepare(item)
                prepared.append(item)
            } catch {
                failures[item.path] = error
                discard(item.file)
            }
        }
        if prepared.count >= 8, LinuxCalls.syncFileSystem(prepared[0].file.fd) {
            for item in prepared { close(item.file.fd) }
        } else {
            var synced: [PendingCommit] = []
            for item in prepared {
                if fsync(item.file.fd) == 0 {
                    close(item.file.fd)
                    synced.append(item)
                } else {
                    failures[item.path] = .posix(errno, "fsync", item.file.path)
                    discard(item.file)
                }
            }
            prepared = synced
        }
        guard !prepared.isEmpty else { return failures }

        let temporary: OwnedDescriptor
        do {
            temporary = try agentFolder(ContainerLayout.temporaryName)
        } catch {
            for item in prepared { failures[item.path] = error }
            return failures
        }
        var parents: [String: OwnedDescriptor] = [:]
        for item in prepared {
            do throws(FileSystemError) {
                let key = item.path.parent?.rawValue ?? ""
                let parent: OwnedDescriptor
                if let known = parents[key] {
                    parent = known
                } else {
                    parent = try parentFolder(of: item.path, create: true)
                    parents[key] = parent
                }
                guard renameat(temporary.fd, item.file.name, parent.fd, String(item.path.name)) == 0 else {
                    throw FileSystemError.posix(errno, "rename into place", item.path.rawValue)
                }
            } catch {
                failures[item.path] = error
                unlinkat(temporary.fd, item.file.name, 0)
            }
        }
        for (key, parent) in parents where fsync(parent.fd) != 0 {
            logger.warning("cannot sync folder", metadata: ["path": "\(key)", "errno": "\(errno)"])
        }
        return failures
    }

    private func prepare(_ item: PendingCommit) throws(FileSystemError) {
        guard fchmod(item.file.fd, Self.mode(executable: item.executable)) == 0 else {
            throw FileSystemError.posix(errno, "chmod", item.file.path)
        }
        let time = Posix.timespec(nanoseconds: item.mtimeNs)
        let times = [time, time]
        guard futimens(item.file.fd, times) == 0 else {
            throw FileSystemError.posix(errno, "set mtime of", item.file.path)
        }
    }

    // MARK: - Folders and links

    /// Creates a folder and any missing parents; an existing folder is fine. Sets its mtime
    /// when given.
    public func makeDirectory(_ path: RelativePath, mtimeNs: Int64? = nil) throws(FileSystemError) {
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
        if let mtimeNs { try setTimes(name, in: parent.fd, mtimeNs: mtimeNs, display: path.rawValue) }
    }

    /// Creates or replaces a symbolic link atomically (made in `.ubiq/tmp/`, then renamed).
    /// The link text is stored as given and never followed here.
    public func makeSymlink(_ path: RelativePath, target: String, mtimeNs: Int64? = nil) throws(FileSystemError) {
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

    func setTimes(_ name: String, in folder: Int32, mtimeNs: Int64, display: String) throws(FileSystemError) {
        let time = Posix.timespec(nanoseconds: mtimeNs)
        guard utimensat(folder, name, [time, time], AT_SYMLINK_NOFOLLOW) == 0 else {
            throw FileSystemError.posix(errno, "set mtime of", display)
        }
    }
}
