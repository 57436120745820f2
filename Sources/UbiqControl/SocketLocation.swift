#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

/// The socket's place on disk: a private folder owned by the agent's user.
struct SocketLocation {
    let socketPath: String
    let uid: UInt32

    var folder: String {
        guard let slash = socketPath.lastIndex(of: "/") else { return "." }
        return slash == socketPath.startIndex ? "/" : String(socketPath[..<slash])
    }

    /// Creates missing folders 0700 and refuses a folder of another user. An existing folder
    /// is never changed; if others can enter it a warning is logged.
    func prepareFolder(logger: Logger) throws(ControlServerError) {
        try createMissing(folder)
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw ControlServerError(.folderUnusable, "\(folder) is not a folder; choose another socket path with --socket")
        }
        guard info.st_uid == uid else {
            throw ControlServerError(
                .folderNotOwned,
                "\(folder) belongs to uid \(info.st_uid), not to uid \(uid); put the socket in a folder of your own with --socket")
        }
        if info.st_mode & 0o077 != 0 {
            logger.warning("the control socket's folder is accessible to other users", metadata: [
                "folder": "\(folder)", "mode": "\(String(info.st_mode & 0o777, radix: 8))",
            ])
        }
    }

    private func createMissing(_ path: String) throws(ControlServerError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try createMissing(String(path[..<slash]))
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw ControlServerError(.folderUnusable, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        _ = chmod(path, 0o700)
    }

    enum Existing {
        case nothing
        case socket
    }

    /// What sits at the socket path now; anything but a socket is an error.
    func existing() throws(ControlServerError) -> Existing {
        var info = stat()
        guard lstat(socketPath, &info) == 0 else { return .nothing }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ControlServerError(.pathOccupied, "\(socketPath) exists and is not a socket; remove it or choose another path with --socket")
        }
        return .socket
    }

    /// Makes the bound socket 0600 and returns its identity, so only this socket is removed
    /// at shutdown.
    func secureSocket() throws(ControlServerError) -> SocketIdentity {
        guard chmod(socketPath, 0o600) == 0 else {
            throw ControlServerError(.bindFailed, "cannot chmod \(socketPath): \(String(cString: strerror(errno)))")
        }
        guard let identity = currentIdentity() else {
            throw ControlServerError(.bindFailed, "\(socketPath) vanished right after binding")
        }
        return identity
    }

    /// Removes the socket file if it is still the one this server bound.
    func remove(ifStill identity: SocketIdentity) {
        if currentIdentity() == identity { unlink(socketPath) }
    }

    private func currentIdentity() -> SocketIdentity? {
        var info = stat()
        guard lstat(socketPath, &info) == 0 else { return nil }
        return SocketIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

struct SocketIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}
