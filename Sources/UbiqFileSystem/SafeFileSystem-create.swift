#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

extension SafeFileSystem {
    /// Moves a finished temp file to `path` like `commit`, but only where nothing is there:
    /// `.alreadyExists` otherwise, never a replacement. For files the agent creates on a
    /// user's behalf, such as a conflict version saved under a new name. On failure the
    /// temp file is deleted.
    ///
    /// Returns the stat facts to record as the scan baseline.
    @discardableResult
    public func commitNew(_ file: TempFile, to path: RelativePath, permissions: Permissions, mtimeNs: Int64,
                          attributes: ExtendedAttributes? = nil) throws(FileSystemError) -> FileStat {
        let facts: FileStat
        let temporary: OwnedDescriptor
        let parent: OwnedDescriptor
        do throws(FileSystemError) {
            try finish(file.fd, permissions: permissions, mtimeNs: mtimeNs, attributes: attributes, display: path.rawValue)
            var st = stat()
            guard fstat(file.fd, &st) == 0 else { throw FileSystemError.posix(errno, "fstat", file.path) }
            facts = FileStat(st)
            guard fsync(file.fd) == 0 else { throw FileSystemError.posix(errno, "fsync", file.path) }
            temporary = try agentFolder(ContainerLayout.temporaryName)
            parent = try parentFolder(of: path, create: true)
        } catch {
            discard(file)
            throw error
        }
        file.close()
        let name = String(path.name)
        do throws(FileSystemError) { try renameNew(file.name, from: temporary.fd, to: parent.fd, name: name, path: path) } catch {
            unlinkat(temporary.fd, file.name, 0)
            throw error
        }
        if fsync(parent.fd) != 0 {
            logger.warning("cannot sync folder", metadata: ["path": "\(path)", "errno": "\(errno)"])
        }
        return Self.baseline(after: facts, name: name, in: parent.fd)
    }

    /// Renames a temp file to `name` in `parent` only where nothing is there.
    func renameNew(_ temporaryName: String, from temporary: Int32, to parent: Int32, name: String, path: RelativePath) throws(FileSystemError) {
        guard LinuxCalls.renameNoReplace(temporary, temporaryName, parent, name) != 0 else { return }
        let code = errno
        guard code == EINVAL || code == ENOSYS else { throw Self.createError(code, path) }
        // The file system cannot refuse to replace: link (which never replaces), then drop the
        // temp name.
        guard linkat(temporary, temporaryName, parent, name, 0) == 0 else { throw Self.createError(errno, path) }
        unlinkat(temporary, temporaryName, 0)
    }

    private static func createError(_ code: Int32, _ path: RelativePath) -> FileSystemError {
        code == EEXIST
            ? FileSystemError(.alreadyExists, "'\(path)' already exists; not replacing it")
            : FileSystemError.posix(code, "create", path.rawValue)
    }
}
