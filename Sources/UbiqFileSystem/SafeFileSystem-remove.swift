#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

extension SafeFileSystem {
    /// Removes a file, a link, or a folder that is empty or holds only what ubiq never syncs
    /// (`*.nosync` entries, sockets, fifos, devices). A folder with synced content is left
    /// alone (`.directoryNotEmpty`); `.notFound` if nothing is there.
    public func remove(_ path: RelativePath) throws(FileSystemError) {
        let parent = try parentFolder(of: path, create: false)
        let name = String(path.name)
        guard let st = Posix.lstat(at: parent.fd, name) else {
            throw FileSystemError.posix(errno, "remove", path.rawValue)
        }
        guard Posix.kind(of: st.st_mode) == .directory else {
            guard unlinkat(parent.fd, name, 0) == 0 else { throw FileSystemError.posix(errno, "remove", path.rawValue) }
            return
        }
        if unlinkat(parent.fd, name, AT_REMOVEDIR) == 0 { return }
        let code = errno
        guard code == ENOTEMPTY || code == EEXIST else { throw FileSystemError.posix(code, "remove folder", path.rawValue) }

        let folder = try openFolder(name, in: parent.fd, create: false, display: path.rawValue)
        let (names, error) = Posix.directoryEntries(of: folder.fd)
        if let error { throw FileSystemError.posix(error, "read folder", path.rawValue) }
        for bytes in names where !isIgnored(bytes, in: folder.fd) {
            throw FileSystemError(.directoryNotEmpty,
                "folder '\(path)' still holds '\(String(decoding: bytes, as: UTF8.self))', which is synced; remove that first")
        }
        for bytes in names {
            try removeTree(Posix.cName(bytes), in: folder.fd, display: path.rawValue)
        }
        guard unlinkat(parent.fd, name, AT_REMOVEDIR) == 0 else {
            throw FileSystemError.posix(errno, "remove folder", path.rawValue)
        }
    }

    /// Names the scanner skips; a name that is not UTF-8 is kept, since it cannot be synced
    /// but is still the user's file.
    private func isIgnored(_ bytes: [UInt8], in folder: Int32) -> Bool {
        guard let name = String(validating: bytes, as: UTF8.self) else { return false }
        if name.hasSuffix(".nosync") { return true }
        guard let st = Posix.lstat(at: folder, name) else { return false }
        return Posix.kind(of: st.st_mode) == .other
    }

    /// `rm -r` of one entry of an open folder, never following links.
    func removeTree(_ name: [CChar], in folder: Int32, display: String) throws(FileSystemError) {
        let shown = display + "/" + String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if unlinkat(folder, name, 0) == 0 || errno == ENOENT { return }
        guard errno == EISDIR else { throw FileSystemError.posix(errno, "remove", shown) }
        let fd = openat(folder, name, Posix.directoryFlags)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open folder", shown) }
        let child = OwnedDescriptor(fd)
        let (names, error) = Posix.directoryEntries(of: child.fd)
        if let error { throw FileSystemError.posix(error, "read folder", shown) }
        for bytes in names {
            try removeTree(Posix.cName(bytes), in: child.fd, display: shown)
        }
        guard unlinkat(folder, name, AT_REMOVEDIR) == 0 || errno == ENOENT else {
            throw FileSystemError.posix(errno, "remove folder", shown)
        }
    }
}
