import UbiqIndex
import UbiqModel

/// What a scan found at one path.
public struct ScannedEntry: Sendable, Equatable {
    public var path: RelativePath
    public var kind: ItemKind
    public var size: UInt64
    public var mtime: Int64
    public var executable: Bool
    public var symlinkTarget: String?
    public var chunks: [ChunkRef]
    public var stat: StatFingerprint

    public init(path: RelativePath, kind: ItemKind, size: UInt64, mtime: Int64, executable: Bool,
                symlinkTarget: String?, chunks: [ChunkRef], stat: StatFingerprint) {
        self.path = path
        self.kind = kind
        self.size = size
        self.mtime = mtime
        self.executable = executable
        self.symlinkTarget = symlinkTarget
        self.chunks = chunks
        self.stat = stat
    }
}

/// The result of scanning a subtree: entries that need a look (new or changed on disk) and
/// every path seen, so that the caller can tell what was deleted.
public struct ScanOutcome: Sendable {
    public var root: RelativePath?
    public var changed: [ScannedEntry]
    public var seen: Set<RelativePath>
    /// Files whose content was read and hashed by this scan.
    public var filesHashed: Int

    public init(root: RelativePath?, changed: [ScannedEntry], seen: Set<RelativePath>, filesHashed: Int = 0) {
        self.root = root
        self.changed = changed
        self.seen = seen
        self.filesHashed = filesHashed
    }
}

/// A file being assembled in the container's `.ubiq/tmp/` before it is renamed into place.
public protocol StagedFile: Sendable {
    func write(_ bytes: [UInt8], at offset: UInt64) throws
    func discard()
}

/// Why a disk operation was not done; the engine decides what follows.
public struct DiskError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notEmpty
        case notFound
        case escapesContainer
        case io
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}

/// The file-system operations the engine needs on one container. Every write is atomic and
/// never follows a symlink out of the container; the implementation lives beside this.
public protocol ContainerDisk: Sendable {
    var root: String { get }
    func prepare() throws
    func scan(under root: RelativePath?, baseline: @escaping @Sendable (RelativePath) -> StatFingerprint?) throws -> ScanOutcome
    func stat(_ path: RelativePath) -> StatFingerprint?
    func read(_ file: ChunkLocation.File, offset: UInt64, size: UInt32) throws -> [UInt8]
    func stage() throws -> any StagedFile
    func commit(_ staged: any StagedFile, to path: RelativePath, executable: Bool, mtime: Int64) throws -> StatFingerprint
    /// The flat file name under `.ubiq/versions/` of a kept version of `path`.
    func versionName(of path: RelativePath, id: String) throws -> String
    /// IDs of the versions of `path` kept on disk.
    func storedVersionIDs(of path: RelativePath) throws -> Set<String>
    func commitVersion(_ staged: any StagedFile, of path: RelativePath, id: String, executable: Bool, mtime: Int64) throws
    /// Keeps what is at `path` as a version too (a hard link), before it is replaced.
    func linkVersion(of path: RelativePath, id: String) throws
    func removeVersion(of path: RelativePath, id: String) throws
    func makeDirectory(_ path: RelativePath) throws -> StatFingerprint
    func makeSymlink(_ path: RelativePath, target: String) throws -> StatFingerprint
    func remove(_ path: RelativePath) throws
}
