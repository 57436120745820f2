#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

/// Where things are inside one container folder: the user-visible `Documents/` and the
/// agent's private `.ubiq/` with its temp files and conflict versions.
public struct ContainerLayout: Sendable, Hashable {
    /// The container's root folder, absolute, without a trailing slash.
    public let root: String

    public init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    public static let documentsName = "Documents"
    public static let temporaryName = "tmp"
    public static let versionsName = "versions"
    public static let historyName = "history"

    public var documents: String { root + "/" + Self.documentsName }
    public var agentFolder: String { root + "/" + RelativePath.agentFolder }
    /// Temp files being written; they become documents by rename, so on the same file system.
    public var temporaryFolder: String { agentFolder + "/" + Self.temporaryName }
    /// Conflict versions, kept until a client resolves them.
    public var versionsFolder: String { agentFolder + "/" + Self.versionsName }
    /// Versions this device replaced or deleted, kept until retention lets them go.
    public var historyFolder: String { agentFolder + "/" + Self.historyName }

    /// The absolute path of a container-relative path.
    public func absolutePath(of path: RelativePath) -> String { root + "/" + path.rawValue }

    /// Creates the root (and missing parents), `Documents/`, and `.ubiq/` (mode 0700) with its
    /// subfolders. Existing folders are kept; `.ubiq` must not be a symbolic link.
    public func create() throws(FileSystemError) {
        try Self.makeDirectories(root)
        try Self.makeDirectory(documents, mode: 0o755)
        try Self.makeDirectory(agentFolder, mode: 0o700)
        if chmod(agentFolder, 0o700) != 0 {
            throw FileSystemError.posix(errno, "chmod", agentFolder)
        }
        try Self.makeDirectory(temporaryFolder, mode: 0o700)
        try Self.makeDirectory(versionsFolder, mode: 0o700)
        try Self.makeDirectory(historyFolder, mode: 0o700)
    }

    static func makeDirectory(_ path: String, mode: mode_t) throws(FileSystemError) {
        if mkdir(path, mode) == 0 { return }
        let code = errno
        guard code == EEXIST else { throw FileSystemError.posix(code, "create folder", path) }
        var st = stat()
        guard lstat(path, &st) == 0 else { throw FileSystemError.posix(errno, "lstat", path) }
        switch Posix.kind(of: st.st_mode) {
        case .directory: return
        case .symlink: throw FileSystemError(.escapesContainer, "'\(path)' is a symbolic link; it must be a real folder")
        default: throw FileSystemError(.alreadyExists, "'\(path)' exists and is not a folder; move it away")
        }
    }

    /// `mkdir -p` for the root itself, which may lie below links the user set up.
    static func makeDirectories(_ path: String) throws(FileSystemError) {
        var st = stat()
        if stat(path, &st) == 0 {
            guard Posix.kind(of: st.st_mode) == .directory else {
                throw FileSystemError(.notADirectory, "container root '\(path)' exists and is not a folder")
            }
            return
        }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeDirectories(String(path[..<slash]))
        }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw FileSystemError.posix(errno, "create folder", path)
        }
    }
}
