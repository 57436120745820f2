#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

extension SafeFileSystem {
    /// Gives the file at `path` new permissions and mtime in place, when it is still the file
    /// the caller last saw (`expected`): a new version with the same bytes needs no copy of
    /// them. Throws `.alreadyExists` when the file changed meanwhile (the next scan decides);
    /// returns the stat facts to record.
    /// `attributes`: the `user.` extended attributes to leave it with; nil leaves them alone.
    public func setMetadata(of path: RelativePath, permissions: Permissions, mtimeNs: Int64, attributes: ExtendedAttributes? = nil,
                            expected: FileStat) throws(FileSystemError) -> FileStat {
        let parent = try parentFolder(of: path, create: false)
        let fd = openat(parent.fd, String(path.name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open", path.rawValue) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileSystemError.posix(errno, "fstat", path.rawValue) }
        guard Posix.kind(of: st.st_mode) == .regular, FileStat(st) == expected else {
            throw FileSystemError(.alreadyExists, "'\(path)' changed on disk before its permissions and mtime could be set")
        }
        try finish(fd, permissions: permissions, mtimeNs: mtimeNs, attributes: attributes, display: path.rawValue, inPlace: true)
        guard fsync(fd) == 0, fstat(fd, &st) == 0 else { throw FileSystemError.posix(errno, "fsync", path.rawValue) }
        return FileStat(st)
    }

    /// Gives an open file its attributes, permissions and mtime, in that order: setting a
    /// `user.` attribute needs write permission, which the new permissions may take away, and
    /// both change the ctime but not the mtime. `replacing`: the path whose mode a replacement
    /// keeps under ``ignoresPermissions``; `inPlace`: the file is the one at its path.
    func finish(_ fd: Int32, permissions: Permissions, mtimeNs: Int64, attributes: ExtendedAttributes?, display: String,
                replacing path: RelativePath? = nil, inPlace: Bool = false) throws(FileSystemError) {
        if let attributes, !ignoresAttributes { try write(attributes, to: fd, display: display) }
        if ignoresPermissions {
            // Best effort: a file system that cannot hold permissions refuses any change.
            if !inPlace { _ = fchmod(fd, path.flatMap(fileMode) ?? mode_t(Permissions.defaults(for: .file).bits)) }
        } else {
            guard fchmod(fd, mode_t(permissions.bits)) == 0 else { throw FileSystemError.posix(errno, "chmod", display) }
        }
        let time = Posix.timespec(nanoseconds: mtimeNs)
        guard futimens(fd, [time, time]) == 0 else { throw FileSystemError.posix(errno, "set mtime of", display) }
    }

    /// The permission bits of the file at `path`; nil where no file is there.
    private func fileMode(_ path: RelativePath) -> mode_t? {
        guard let parent = try? parentFolder(of: path, create: false), let st = Posix.lstat(at: parent.fd, String(path.name)),
              Posix.kind(of: st.st_mode) == .regular
        else { return nil }
        return st.st_mode & 0o7777
    }

    /// Writes `attributes` to an open file or folder, giving its owner write permission first
    /// where it lacks it (the caller sets the final permissions after).
    func write(_ attributes: ExtendedAttributes, to fd: Int32, display: String) throws(FileSystemError) {
        do throws(FileSystemError) { try AttributeIO.write(attributes, to: fd, display: display) } catch {
            guard error.code == .ioError(errno: EACCES) || error.code == .ioError(errno: EPERM) else { throw error }
            var st = stat()
            guard fstat(fd, &st) == 0, st.st_mode & S_IWUSR == 0, fchmod(fd, (st.st_mode & 0o7777) | S_IWUSR) == 0 else { throw error }
            try AttributeIO.write(attributes, to: fd, display: display)
        }
    }

    /// Sets the mtime of the folder at `path` (never following a link there): the puller puts
    /// back a folder's synced mtime after changing what is inside it. Returns its stat facts.
    public func setFolderTime(of path: RelativePath, mtimeNs: Int64) throws(FileSystemError) -> FileStat {
        let parent = try parentFolder(of: path, create: false)
        let name = String(path.name)
        guard let st = Posix.lstat(at: parent.fd, name) else { throw FileSystemError.posix(errno, "stat", path.rawValue) }
        guard Posix.kind(of: st.st_mode) == .directory else {
            throw FileSystemError(.notFound, "'\(path)' is no longer a folder")
        }
        try setTimes(name, in: parent.fd, mtimeNs: mtimeNs, display: path.rawValue)
        return try statFacts(name, in: parent.fd, display: path.rawValue)
    }
}
