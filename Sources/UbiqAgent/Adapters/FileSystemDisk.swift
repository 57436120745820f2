#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Logging
import Synchronization
import UbiqConfig
import UbiqFileSystem
import UbiqIndex
import UbiqModel
import UbiqSync

/// The engine's `ContainerDisk` over the file-system module: scanner, safe writes and
/// conflict-version storage of one container.
struct FileSystemDisk: ContainerDisk {
    let layout: ContainerLayout
    let files: SafeFileSystem
    let scanner: ContainerScanner
    let packages: PackageRules

    /// Where a test asked the agent to die while applying a file (never set otherwise).
    let crash = TestHooks.crashPoint
    /// The folder's marker as last read, for the folder checks around every scan.
    let markerCache = FolderMarkerFile.Cache()

    init(settings: ContainerSettings, packages: PackageRules, logger: Logger) {
        layout = ContainerLayout(root: settings.path)
        self.packages = packages
        var files = SafeFileSystem(layout: layout, logger: logger)
        if let crash {
            files.beforeRename = { crash.reached(.beforeRename, $0) }
            files.beforeExchange = { crash.reached(.packageStaged, $0) }
            files.afterExchange = { crash.reached(.packageExchanged, $0) }
        }
        files.ignoresPermissions = settings.ignorePermissions
        files.ignoresAttributes = !settings.extendedAttributes
        self.files = files
        var scanner = ContainerScanner(layout: layout, logger: logger)
        scanner.readsAttributes = settings.extendedAttributes
        scanner.readsPermissions = !settings.ignorePermissions
        scanner.packages = packages
        if let batch = TestHooks.scanBatch { scanner.batchSize = batch }
        self.scanner = scanner
    }

    func prepare() throws {
        try layout.create()
        try files.removeTemporaryFiles(keepingPartials: true)
    }

    var location: String { layout.root }

    func probeFolder() -> FolderProbe { FolderMarkerFile.probe(layout, cache: markerCache) }

    func writeMarker(_ marker: FolderMarker) throws { try FolderMarkerFile.write(marker, in: layout) }

    func scan(under root: RelativePath?, ignoring: IgnoreRules, baseline: @escaping @Sendable (RelativePath) -> FileStat?,
              package: @escaping @Sendable (RelativePath) -> PackageContent?, known: @escaping @Sendable (RelativePath) -> RelativePath?, knownCount: Int,
              changes: ([LocalEntry]) -> Bool) throws -> ScanOutcome {
        // The scan's walk keeps `changes` only while it runs.
        let result = try withoutActuallyEscaping(changes) { changes in
            try scanner.scan(under: root, baseline: Baseline(lookup: baseline, package: package, knownPath: known, knownCount: knownCount), ignoring: ignoring, changes: changes)
        }
        var seen = result.seen
        // Files that changed while hashed, or could not be read, are not deletions.
        if !result.unstable.isEmpty || !result.failures.isEmpty {
            seen.formUnion(result.unstable)
            seen.formUnion(result.failures.map(\.path))
        }
        let problems = result.invalidNames.map {
            ScanProblem(path: $0, reason: "not synced: the name is not valid UTF-8 (or not a valid path); rename it to sync it")
        } + result.failures.map {
            ScanProblem(path: $0.path.rawValue, reason: "not synced: cannot be read (\($0.error.message)); on disk it is kept, never taken as deleted",
                        kind: $0.kind)
        } + result.oversizedAttributes.map { path, bytes in
            ScanProblem(path: path.rawValue, reason: "extended attributes not synced: their \(bytes) bytes pass the limit of "
                            + "\(ExtendedAttributes.limit) (names and values together); the file syncs without this change of them")
        } + result.ignored.map { path, pattern in
            ScanProblem(path: path.rawValue, reason: "not synced: ignored by \(IgnoreRules.describe(pattern))", ignoredBy: pattern)
        } + result.leftOutOfPackages.map { path, reason in
            ScanProblem(path: path, reason: "not synced with its package: \(reason)")
        }
        return ScanOutcome(changed: result.changed, seen: seen, filesHashed: result.filesHashed, problems: problems, linked: result.linked,
                           unread: Set(result.failures.map(\.path)), entries: result.entries)
    }

    func stat(_ path: RelativePath) -> FileStat? {
        files.fileStat(of: path)
    }

    private func open(_ file: ChunkLocation.File) throws -> Int32 {
        switch file {
        case .item(let path):
            return try files.openForReading(path)
        case .version(let name) where name.contains("/"):
            return try Self.openMember(of: name) { (tree, member) throws(FileSystemError) in try files.openVersionMember(named: tree, member: member) }
        case .version(let name):
            guard !name.hasPrefix(".") else { throw DiskError(.escapesContainer, "bad version name") }
            let fd = Glibc.open(layout.versionsFolder + "/" + name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw DiskError(.notFound, "version file \(name) is missing") }
            return fd
        case .history(let name) where name.contains("/"):
            return try Self.openMember(of: name) { (tree, member) throws(FileSystemError) in try files.openHistoryMember(named: tree, member: member) }
        case .history(let name):
            do { return try files.openHistory(name) } catch {
                throw DiskError(error.code == .notFound ? .notFound : .io, error.message)
            }
        }
    }

    /// Opens a file inside a kept package tree named `NAME/inner/path` with `open` (of the
    /// versions or the history).
    private static func openMember(of name: String, _ open: (String, RelativePath) throws(FileSystemError) -> Int32) throws -> Int32 {
        let (tree, rest) = (String(name.prefix { $0 != "/" }), String(name.drop { $0 != "/" }.dropFirst()))
        guard let member = try? RelativePath(rest) else { throw DiskError(.escapesContainer, "'\(name)' is not a file in a kept package") }
        do { return try open(tree, member) } catch {
            throw DiskError(error.code == .notFound ? .notFound : .io, error.message)
        }
    }

    func copy(_ file: ChunkLocation.File, offset: UInt64, length: UInt64, into staged: any StagedFile, at target: UInt64) throws {
        guard let staged = staged as? Staged else { throw DiskError(.io, "not a staged file of this disk") }
        let fd = try open(file)
        defer { close(fd) }
        try staged.copy(from: fd, at: offset, length: length, to: target)
    }

    func read(_ file: ChunkLocation.File, offset: UInt64, size: UInt32) throws -> Data {
        let fd = try open(file)
        defer { close(fd) }
        // Read straight into the bytes handed out (served runs go into a message as they
        // are), not zero-filled first.
        do {
            return try CacheLineAlignedIO.read(fd, at: offset, count: Int(size), path: "\(file)")
        } catch {
            throw DiskError(.io, error.message)
        }
    }

    func stage() throws -> any StagedFile {
        Staged(file: try files.makeTempFile(), files: files)
    }

    func stageResumable(key: String) throws -> (file: any StagedFile, resumed: Bool) {
        guard let (file, resumed) = try files.openPartialFile(key: key) else { return (try stage(), false) }
        return (Staged(file: file, files: files, resumable: true, resumed: resumed), resumed)
    }

    func removeAbandonedPartials() {
        files.removePartialFiles()
    }

    func commit(_ staged: any StagedFile, to path: RelativePath, metadata: FileMetadata, keepReplacedAs: String?) throws -> FileStat {
        switch commitAll([StagedCommit(staged: staged, path: path, metadata: metadata, keepReplacedAs: keepReplacedAs)])[path] {
        case .success(let stat): return stat
        case .failure(let error): throw error
        case nil: throw DiskError(.io, "'\(path)' was not committed")
        }
    }

    /// Frees replaced large files off the caller's path: the new version is in place and
    /// recorded sooner.
    private func removeLater(_ replaced: [String]) {
        guard !replaced.isEmpty else { return }
        let files = self.files
        DispatchQueue.global(qos: .utility).async { files.removeReplaced(replaced) }
    }

    func commitAll(_ staged: [StagedCommit]) -> [RelativePath: Result<FileStat, DiskError>] {
        var results: [RelativePath: Result<FileStat, DiskError>] = [:]
        var pending: [PendingCommit] = []
        for entry in staged { crash?.reached(.staged, entry.path) }
        for entry in staged {
            guard let file = (entry.staged as? Staged)?.take() else {
                results[entry.path] = .failure(DiskError(.io, "temp file already finished"))
                continue
            }
            let replacing: PendingCommit.Replacing = switch entry.replacing {
            case .anything: .anything
            case .nothing: .nothing
            case .unchanged(let seen): .unchanged(seen)
            }
            let metadata = entry.metadata
            pending.append(PendingCommit(file: file, path: entry.path, permissions: metadata.permissions, mtimeNs: metadata.mtime,
                                         attributes: metadata.attributes, replacing: replacing, keepReplacedAs: entry.keepReplacedAs))
        }
        let outcome = files.commit(pending)
        for path in outcome.committed.keys { crash?.reached(.renamed, path) }
        removeLater(outcome.replaced)
        for (path, stat) in outcome.committed { results[path] = .success(stat) }
        for (path, error) in outcome.failures {
            let code: DiskError.Code = switch error.code {
            case .escapesContainer: .escapesContainer
            case .alreadyExists: .alreadyExists
            default: .io
            }
            results[path] = .failure(DiskError(code, error.message))
        }
        return results
    }

    func commitNew(_ staged: any StagedFile, to path: RelativePath, metadata: FileMetadata) throws -> FileStat {
        let file = try Self.take(staged)
        do {
            return try files.commitNew(file, to: path, permissions: metadata.permissions, mtimeNs: metadata.mtime, attributes: metadata.attributes)
        } catch {
            switch error.code {
            case .alreadyExists: throw DiskError(.alreadyExists, error.message)
            case .escapesContainer: throw DiskError(.escapesContainer, error.message)
            default: throw error
            }
        }
    }

    func versionName(of path: RelativePath, id: String) throws -> String {
        try SafeFileSystem.versionName(of: path, id: id)
    }

    func storedVersionIDs(of path: RelativePath) throws -> Set<String> {
        try files.storedVersionIDs(of: path)
    }

    func commitVersion(_ staged: any StagedFile, of path: RelativePath, id: String, metadata: FileMetadata) throws {
        try files.commitToVersions(try Self.take(staged), path: path, id: id, permissions: metadata.permissions, mtimeNs: metadata.mtime,
                                   attributes: metadata.attributes)
    }

    func commitPackageVersion(_ staged: any StagedPackage, of path: RelativePath, id: String) throws {
        let staging = try Self.take(staged)
        do { try files.commitToVersions(staging, path: path, id: id) } catch {
            try? files.removeStaged(staging.name)
            throw DiskError(.io, error.message)
        }
    }

    func removeVersion(of path: RelativePath, id: String) throws {
        do { try files.removeVersion(of: path, id: id) } catch where error.code == .notFound {}
    }

    func storedVersionNames() throws -> [(name: String, changedNs: Int64)] {
        try files.storedVersionNames()
    }

    func removeVersion(named name: String) throws {
        try files.removeStoredVersion(named: name)
    }

    func setMetadata(of path: RelativePath, metadata: FileMetadata, expected: FileStat) throws -> FileStat {
        do {
            return try files.setMetadata(of: path, permissions: metadata.permissions, mtimeNs: metadata.mtime, attributes: metadata.attributes,
                                         expected: expected)
        } catch {
            throw error.code == .alreadyExists ? DiskError(.alreadyExists, error.message) : error
        }
    }

    func makeDirectory(_ path: RelativePath, permissions: Permissions, attributes: ExtendedAttributes, mtime: Int64?) throws -> FileStat {
        try files.makeDirectory(path, permissions: permissions, attributes: attributes, mtimeNs: mtime)
    }

    func makeSymlink(_ path: RelativePath, target: String, mtime: Int64) throws -> FileStat {
        try files.makeSymlink(path, target: target, mtimeNs: mtime)
    }

    func setFolderTime(_ path: RelativePath, mtime: Int64) throws -> FileStat {
        do { return try files.setFolderTime(of: path, mtimeNs: mtime) } catch {
            throw error.code == .notFound ? DiskError(.notFound, error.message) : error
        }
    }

    func folderEntry(_ path: RelativePath) -> LocalEntry? {
        (try? scanner.scanSingle(path, baseline: EmptyScanBaseline()))?.changed.first { $0.kind == .directory }
    }

    func newHistoryName() -> String { SafeFileSystem.historyName() }

    /// The size of the file system holding `path` (or of its nearest existing parent); nil
    /// where it cannot be read.
    static func capacity(of path: String) -> UInt64? {
        var path = path
        var info = statvfs()
        while statvfs(path, &info) != 0 {
            guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return nil }
            path = String(path[..<slash])
        }
        return UInt64(info.f_blocks) * UInt64(info.f_frsize)
    }

    func removeKeeping(_ path: RelativePath, as name: String, expected: FileStat?) throws -> Bool {
        do { return try files.removeKeeping(path, as: name, expected: expected) } catch {
            switch error.code {
            case .notFound: throw DiskError(.notFound, error.message)
            case .alreadyExists: throw DiskError(.alreadyExists, error.message)
            case .escapesContainer: throw DiskError(.escapesContainer, error.message)
            default: throw error
            }
        }
    }

    func copyToHistory(_ path: RelativePath, as name: String, expected: FileStat) throws {
        do { try files.copyToHistory(path, as: name, expected: expected) } catch {
            throw DiskError(error.code == .alreadyExists ? .alreadyExists : .io, error.message)
        }
    }

    func moveVersionToHistory(named version: String, as name: String) throws {
        do { try files.moveVersionToHistory(named: version, as: name) } catch {
            throw DiskError(error.code == .notFound ? .notFound : .io, error.message)
        }
    }

    func removeHistory(named name: String) throws { try files.removeHistory(name) }

    func historyNames() throws -> Set<String> { try files.historyNames() }

    func remove(_ path: RelativePath) throws {
        do { try files.remove(path) } catch {
            switch error.code {
            case .directoryNotEmpty: throw DiskError(.notEmpty, error.message)
            case .notFound: throw DiskError(.notFound, error.message)
            case .escapesContainer: throw DiskError(.escapesContainer, error.message)
            default: throw error
            }
        }
    }

    // MARK: conversions

    private struct Baseline: ScanBaseline {
        let lookup: @Sendable (RelativePath) -> FileStat?
        let package: @Sendable (RelativePath) -> PackageContent?
        let knownPath: @Sendable (RelativePath) -> RelativePath?
        let knownCount: Int
        func stat(of path: RelativePath) -> FileStat? { lookup(path) }
        func package(at path: RelativePath) -> PackageContent? { package(path) }
        func known(_ path: RelativePath) -> RelativePath? { knownPath(path) }
    }

    /// A temp file handed to the engine; committing or discarding it twice does nothing.
    final class Staged: StagedFile {
        let files: SafeFileSystem
        private let file: Mutex<TempFile?>
        let resumable: Bool
        /// Whether anything may have been written before: an earlier attempt's file.
        let resumed: Bool
        /// Set by ``setSize(_:)`` on a fresh file: blocks of zeros are left as holes.
        private let leavesHoles = Atomic(false)

        init(file: TempFile, files: SafeFileSystem, resumable: Bool = false, resumed: Bool = false) {
            self.files = files
            self.file = Mutex(file)
            self.resumable = resumable
            self.resumed = resumed
        }

        func reserve(_ ranges: [Range<UInt64>]) throws {
            guard let file = self.file.withLock({ $0 }) else { throw DiskError(.io, "temp file already finished") }
            try file.reserve(ranges)
        }

        func write(_ bytes: some ContiguousBytes, at offset: UInt64) throws {
            guard let file = self.file.withLock({ $0 }) else { throw DiskError(.io, "temp file already finished") }
            if leavesHoles.load(ordering: .acquiring) {
                try file.writeLeavingHoles(bytes, at: offset)
            } else {
                try file.write(bytes, at: offset)
            }
        }

        func setSize(_ size: UInt64) throws {
            guard let file = self.file.withLock({ $0 }) else { throw DiskError(.io, "temp file already finished") }
            try file.truncate(to: size)
            if !resumed { leavesHoles.store(true, ordering: .releasing) }
        }

        func read(_ size: UInt32, at offset: UInt64) throws -> Data {
            guard let file = self.file.withLock({ $0 }) else { throw DiskError(.io, "temp file already finished") }
            return try file.read(Int(size), at: offset)
        }

        func copy(from source: Int32, at offset: UInt64, length: UInt64, to target: UInt64) throws {
            guard let file = self.file.withLock({ $0 }) else { throw DiskError(.io, "temp file already finished") }
            try file.copy(from: source, at: offset, length: length, to: target)
        }

        func discard() {
            if let file = take() { files.discard(file) }
        }

        /// Keeps a resumable file that holds something; an empty one is deleted.
        func abandon() {
            guard resumable, let file = take() else { return discard() }
            var info = Glibc.stat()
            if fstat(file.fd, &info) == 0, info.st_size > 0 { files.closeAndKeep(file) } else { files.discard(file) }
        }

        func take() -> TempFile? {
            file.withLock { file in
                defer { file = nil }
                return file
            }
        }
    }

    static func take(_ staged: any StagedFile) throws -> TempFile {
        guard let staged = staged as? Staged, let file = staged.take() else { throw DiskError(.io, "temp file already finished") }
        return file
    }
}
