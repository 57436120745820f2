import Foundation
import UbiqIndex
import UbiqModel

/// The result of scanning a subtree: entries that need a look (new or changed on disk) and
/// every path seen that the index knows, so that the caller can tell what was deleted.
public struct ScanOutcome: Sendable {
    public var changed: [LocalEntry]
    public var seen: Set<RelativePath>
    /// How many paths the scan saw, known or new.
    public var entries: Int
    /// Files whose content was read and hashed by this scan.
    public var filesHashed: Int
    /// What is on disk but cannot be synced, and why.
    public var problems: [ScanProblem]
    /// Files seen with more than one name (hard links), with their inode.
    public var linked: [RelativePath: UInt64]
    /// What could not be read (a folder whose permissions were taken away): whatever the
    /// index holds inside is kept, never taken as deleted.
    public var unread: Set<RelativePath>

    public init(changed: [LocalEntry], seen: Set<RelativePath>, filesHashed: Int = 0, problems: [ScanProblem] = [],
                linked: [RelativePath: UInt64] = [:], unread: Set<RelativePath> = [], entries: Int? = nil) {
        self.changed = changed
        self.seen = seen
        self.entries = entries ?? seen.count
        self.filesHashed = filesHashed
        self.problems = problems
        self.linked = linked
        self.unread = unread
    }
}

/// Something on disk the scanner could not take: a name that is not a valid path (bytes that
/// are not UTF-8, shown escaped) or a file or folder it could not read. Never a deletion.
public struct ScanProblem: Sendable, Hashable {
    /// The container-relative path as people should see it.
    public var path: String
    public var reason: String
    /// What is there, where the scanner got as far as seeing it.
    public var kind: ItemKind?
    /// The ignore line that leaves it out, where that is why it is not synced.
    public var ignoredBy: IgnorePattern?

    public init(path: String, reason: String, kind: ItemKind? = nil, ignoredBy: IgnorePattern? = nil) {
        self.path = path
        self.reason = reason
        self.kind = kind
        self.ignoredBy = ignoredBy
    }

    /// Whether it lies in the subtree `root` (nil: the whole container).
    func isUnder(_ root: RelativePath?) -> Bool {
        guard let root else { return true }
        return path == root.rawValue || path.utf8.starts(with: (root.rawValue + "/").utf8)
    }
}

/// A file being assembled in the container's `.ubiq/tmp/` before it is renamed into place.
public protocol StagedFile: Sendable {
    /// Sets aside disk space for the byte ranges still to be fetched, before they are
    /// written, so a large file gets few extents and a full disk shows before anything is
    /// fetched. What was copied from local files is not reserved: it may share their extents.
    func reserve(_ ranges: [Range<UInt64>]) throws
    func write(_ bytes: some ContiguousBytes, at offset: UInt64) throws
    /// Gives the file its final length: what is never written reads as zeros and takes no
    /// disk space (a hole). On a file nothing was written to yet, later writes leave their
    /// whole blocks of zeros unwritten, as holes.
    func setSize(_ size: UInt64) throws
    /// Reads back `size` bytes written at `offset`, to place a chunk that occurs again.
    func read(_ size: UInt32, at offset: UInt64) throws -> Data
    func discard()
    /// Gives the file up without committing it: a resumable one that holds something stays
    /// for the next attempt (``ContainerDisk/stageResumable(key:)``), any other is deleted.
    func abandon()
}

/// A staged file and the place it is to take, for committing many at once.
public struct StagedCommit: Sendable {
    /// What the file may replace: a client may write the path while the engine assembles the
    /// new version, and its write must win over a blind rename.
    public enum Replacing: Sendable, Equatable {
        case anything
        /// Only where nothing is (`DiskError.alreadyExists` otherwise).
        case nothing
        /// Only the file with this stat, as the engine last saw it (`.alreadyExists` otherwise).
        case unchanged(FileStat)
    }

    public var staged: any StagedFile
    public var path: RelativePath
    public var metadata: FileMetadata
    /// Where set, the file this one replaces goes to the history under this name (from
    /// ``ContainerDisk/newHistoryName()``); where it cannot, nothing is replaced.
    public var keepReplacedAs: String?
    public var replacing: Replacing

    public init(staged: any StagedFile, path: RelativePath, metadata: FileMetadata, replacing: Replacing = .anything,
                keepReplacedAs: String? = nil) {
        self.staged = staged
        self.path = path
        self.metadata = metadata
        self.replacing = replacing
        self.keepReplacedAs = keepReplacedAs
    }
}

/// Why a disk operation was not done; the engine decides what follows.
public struct DiskError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notEmpty
        case notFound
        /// Something is at a path that was to be created.
        case alreadyExists
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
    /// Makes the folder (and missing parents), `Documents/` and `.ubiq/` where they are not
    /// there; called only once the folder is known to be this container's (`FolderCheck`).
    func prepare() throws
    /// The container's folder, as status names it.
    var location: String { get }
    /// What is at the container's folder now, creating nothing.
    func probeFolder() -> FolderProbe
    /// Writes the folder's marker into `.ubiq/`, durably, in place of any other.
    func writeMarker(_ marker: FolderMarker) throws
    /// What is under `root` (the whole container when nil), leaving out what `ignoring` names.
    /// `baseline`: each path's stat when last recorded; `package`: each package's content then;
    /// `known`: the index's own copy of each path it knows, which alone the outcome's `seen`
    /// holds (nil for a path new to it), and `knownCount` how many it knows at most.
    /// `changes` takes the changed entries in batches as they are found (the outcome's
    /// `changed` holds the rest), so no scan holds a whole tree of new files; where it
    /// returns false the walk stops and the outcome is incomplete.
    func scan(under root: RelativePath?, ignoring: IgnoreRules, baseline: @escaping @Sendable (RelativePath) -> FileStat?,
              package: @escaping @Sendable (RelativePath) -> PackageContent?, known: @escaping @Sendable (RelativePath) -> RelativePath?, knownCount: Int,
              changes: ([LocalEntry]) -> Bool) throws -> ScanOutcome
    func stat(_ path: RelativePath) -> FileStat?
    func read(_ file: ChunkLocation.File, offset: UInt64, size: UInt32) throws -> Data
    /// Copies `length` bytes of a file at `offset` into a staged file at `target`, without
    /// passing them through the engine (in the kernel where the file system can).
    func copy(_ file: ChunkLocation.File, offset: UInt64, length: UInt64, into staged: any StagedFile, at target: UInt64) throws
    func stage() throws -> any StagedFile
    /// A staged file named after `key` (its content's ``ContentKey``) that outlives an
    /// abandoned attempt and a restart, so the next attempt at the same content goes on where
    /// this one stopped; `resumed` when it was there already. Where another attempt holds
    /// it, a fresh ordinary one.
    func stageResumable(key: String) throws -> (file: any StagedFile, resumed: Bool)
    /// Deletes the resumable staged files no attempt holds: nothing needs them any more.
    func removeAbandonedPartials()
    /// Renames the staged file over whatever is at `path`; what it replaces goes to the history
    /// as `keepReplacedAs` where that is set (and where it cannot, nothing is replaced).
    func commit(_ staged: any StagedFile, to path: RelativePath, metadata: FileMetadata, keepReplacedAs: String?) throws -> FileStat
    /// Commits many staged files with one flush of the file system instead of one each (a
    /// burst of small files). Each lands complete at its path or not at all; the result has
    /// the stat of each file committed and the error of each that was not (its staged file is
    /// discarded).
    func commitAll(_ files: [StagedCommit]) -> [RelativePath: Result<FileStat, DiskError>]
    /// Like `commit`, but only where nothing is at `path` yet (`DiskError.alreadyExists`
    /// otherwise, and the staged file is discarded): a new document, never a replacement.
    func commitNew(_ staged: any StagedFile, to path: RelativePath, metadata: FileMetadata) throws -> FileStat
    /// The flat file name under `.ubiq/versions/` of a kept version of `path`.
    func versionName(of path: RelativePath, id: String) throws -> String
    /// IDs of the versions of `path` kept on disk.
    func storedVersionIDs(of path: RelativePath) throws -> Set<String>
    func commitVersion(_ staged: any StagedFile, of path: RelativePath, id: String, metadata: FileMetadata) throws
    /// Stores a staged package as the version `id` of `path`: a tree in `.ubiq/versions/`,
    /// whose files are read as `.version("NAME/inner/path")`.
    func commitPackageVersion(_ staged: any StagedPackage, of path: RelativePath, id: String) throws
    func removeVersion(of path: RelativePath, id: String) throws
    /// Every stored version's file name and ctime (ns).
    func storedVersionNames() throws -> [(name: String, changedNs: Int64)]
    func removeVersion(named name: String) throws
    /// Gives the file at `path` new permissions, attributes and mtime in place, when it still
    /// has the stat `expected` (`DiskError.alreadyExists` otherwise): a version with the same
    /// bytes.
    func setMetadata(of path: RelativePath, metadata: FileMetadata, expected: FileStat) throws -> FileStat
    /// Creates the folder (and missing parents) or takes the one there, with `permissions`,
    /// `attributes` and, when given, `mtime`.
    func makeDirectory(_ path: RelativePath, permissions: Permissions, attributes: ExtendedAttributes, mtime: Int64?) throws -> FileStat
    func makeSymlink(_ path: RelativePath, target: String, mtime: Int64) throws -> FileStat
    /// Sets the mtime of the folder at `path` (`DiskError.notFound` when no folder is there):
    /// the puller puts back a folder's synced mtime after changing what is inside it.
    func setFolderTime(_ path: RelativePath, mtime: Int64) throws -> FileStat
    /// The folder at `path` as the scanner would describe it, without looking inside; nil
    /// when no folder is there.
    func folderEntry(_ path: RelativePath) -> LocalEntry?
    func remove(_ path: RelativePath) throws

    // MARK: history (`.ubiq/history/`)

    /// A name no kept version has.
    func newHistoryName() -> String
    /// Moves the file at `path` into the history as `name` instead of deleting it, when it
    /// still has the stat `expected` (`DiskError.alreadyExists` otherwise). False, having done
    /// nothing, where no regular file is there; `.notFound` where nothing is.
    func removeKeeping(_ path: RelativePath, as name: String, expected: FileStat?) throws -> Bool
    /// Copies the file at `path` into the history as `name` (sharing extents where the file
    /// system can), when it still has the stat `expected` (`DiskError.alreadyExists` otherwise).
    func copyToHistory(_ path: RelativePath, as name: String, expected: FileStat) throws
    /// Moves a stored conflict version's file (`.ubiq/versions/`) into the history as `name`.
    func moveVersionToHistory(named version: String, as name: String) throws
    /// Deletes a kept version's file; nothing happens where it is not there.
    func removeHistory(named name: String) throws
    /// The names of the files in the history.
    func historyNames() throws -> Set<String>

    // MARK: file packages

    /// Which folders are file packages: the scan reads each whole, as one entry.
    var packages: PackageRules { get }
    /// An empty package in `.ubiq/tmp/` to build a new version in.
    func stagePackage() throws -> any StagedPackage
    /// What changes with any write inside the package at `path` but not with a hard link to
    /// one of its files (nil where no folder is there): taken before a new version that
    /// shares its files is staged, and checked again when it is put in place.
    func packageStamp(_ path: RelativePath) throws -> FileStat?
    /// The fingerprint a scan records for the package at `path`, from stat facts alone (nil
    /// where no folder is there): whether it is still as recorded.
    func packageFingerprint(_ path: RelativePath) throws -> FileStat?
    /// Puts a staged package at `path` in one step (a reader sees the old tree or the new one,
    /// never a mix), where what is there still has the stamp `expected` (nil: nothing may be
    /// there); `DiskError.alreadyExists` otherwise, and nothing changes. The tree it replaces
    /// goes to the history as `keepReplacedAs` where that is set (and where it cannot, or is
    /// not, it is removed).
    func commitPackage(_ staged: any StagedPackage, to path: RelativePath, expected: FileStat?, keepReplacedAs: String?) throws
    /// Removes the package at `path` whole, where it still has the stamp `expected`
    /// (`DiskError.alreadyExists` otherwise): into the history as `keepAs`, or freed (nil).
    func removePackage(_ path: RelativePath, expected: FileStat, keepAs: String?) throws
    /// The package at `path` as a scan reads it: the files `previous` lists with the same size
    /// and mtime are not hashed again. `DiskError.notFound` where no folder is there.
    func readPackage(_ path: RelativePath, previous: PackageContent?) throws -> PackageOnDisk
}
