import Foundation
import Synchronization
import UbiqChunking
import UbiqIndex
import UbiqModel
import UbiqSync

/// An in-memory container for the simulator: the engine's `ContainerDisk` with the
/// contracts of the real one (atomic commits through `.ubiq/tmp/`, versions under
/// `.ubiq/versions/`, the scanner's skips and chunking, file packages read whole and swapped
/// in whole), plus a client that edits files
/// the way applications do and a `crash()` that drops what was never synced. Time comes
/// from the simulator's clock and names and inode numbers from counters, so runs repeat.
public final class SimulatedDisk: ContainerDisk {
    let state: Mutex<DiskTree>
    /// What went away with the disk, until it comes back (``goAway(_:)``).
    let away = Mutex(AwayDisk())
    let now: @Sendable () -> Int64
    let chunker = FileChunker()
    static let changedBatch = 3
    /// Which folders are file packages: the scan reads each whole, as one entry.
    public let packages: PackageRules

    /// `now`: the simulated wall time in ns, used for every mtime and ctime.
    public init(packages: PackageRules = .none, now: @escaping @Sendable () -> Int64) {
        self.now = now
        self.packages = packages
        state = Mutex(DiskTree(packages: packages))
    }

    /// Runs `body` under the lock, at the current simulated time.
    func locked<T: Sendable, E: Error>(_ body: (inout DiskTree) throws(E) -> T) throws(E) -> T {
        let time = now()
        return try state.withLock { (tree: inout DiskTree) throws(E) -> T in
            tree.time = time
            return try body(&tree)
        }
    }

    /// Makes the next `count` content writes (staging, writing, reserving or copying into a
    /// staged file, and each commit) throw `DiskError(.io, ...)`, like a failing disk.
    public func failNextWrites(_ count: Int) {
        locked { $0.failuresLeft = count }
    }

    // MARK: - ContainerDisk

    public func prepare() throws {
        try locked { tree in
            let documents = try! RelativePath("Documents")
            if tree.kind(at: documents) == .symlink {
                throw DiskError(.escapesContainer, "'\(documents)' is a symbolic link; it must be a real folder")
            }
            _ = try tree.makeFolders(documents)
            tree.removeTemporaryFiles(keepingPartials: true)
        }
    }

    public var location: String { "the simulated folder" }

    public func probeFolder() -> FolderProbe {
        locked { tree in
            switch tree.standIn {
            case .folderGone: FolderProbe(root: .missing)
            case .emptyMountPoint: FolderProbe(root: .folder(device: 2, inode: 1), marker: .absent, hasEntries: !tree.tree.isEmpty)
            case .markerMissing, nil:
                FolderProbe(root: .folder(device: 1, inode: 1), marker: tree.marker.map { .found($0) } ?? .absent, hasEntries: !tree.tree.isEmpty)
            }
        }
    }

    public func writeMarker(_ marker: FolderMarker) throws {
        locked { $0.marker = marker }
    }

    public func scan(under root: RelativePath?, ignoring: IgnoreRules, baseline: @escaping @Sendable (RelativePath) -> FileStat?,
                     package: @escaping @Sendable (RelativePath) -> PackageContent?, known: @escaping @Sendable (RelativePath) -> RelativePath?, knownCount: Int,
                     changes: ([LocalEntry]) -> Bool) throws -> ScanOutcome
    {
        if locked({ $0.standIn }) == .folderGone { throw DiskError(.notFound, "the container's folder does not exist") }
        let found = locked { $0.scannable(under: root) }.filter { ignoring.ignoring($0.path, isDirectory: $0.kind == .folder) == nil }
        var outcome = ScanOutcome(changed: [], seen: [])
        for node in found {
            // Batches far smaller than the real disk's, so that the simulated worlds' scans
            // record what they find part by part as a large real one does.
            if outcome.changed.count >= Self.changedBatch {
                let batch = outcome.changed
                outcome.changed = []
                if !changes(batch) { return outcome }
            }
            outcome.entries += 1
            if let path = known(node.path) { outcome.seen.insert(path) }
            if let snapshot = node.package {
                let reading: PackageOnDisk
                do {
                    let read = try snapshot.read(previous: package(node.path), chunker: chunker)
                    (reading, outcome.filesHashed) = (read.package, outcome.filesHashed + read.filesHashed)
                } catch {
                    // As the real scanner: reported, and its last synced version stays.
                    outcome.problems.append(ScanProblem(path: node.path.rawValue, reason: "not synced: \(error)", kind: .package))
                    continue
                }
                guard baseline(node.path) != reading.stat else { continue }
                outcome.changed.append(LocalEntry(path: node.path, kind: .package, size: reading.content.size, mtime: node.stat.mtimeNs,
                                                  permissions: Permissions(mode: node.mode, kind: .package), attributes: node.attributes,
                                                  chunks: reading.content.chunks, members: reading.content.members, stat: reading.stat))
                continue
            }
            guard baseline(node.path) != node.stat else { continue }
            switch node.kind {
            case .folder:
                outcome.changed.append(LocalEntry(path: node.path, kind: .directory, size: 0, mtime: node.stat.mtimeNs,
                                                  permissions: Permissions(mode: node.mode, kind: .directory), attributes: node.attributes,
                                                  stat: node.stat))
            case .symlink:
                outcome.changed.append(LocalEntry(path: node.path, kind: .symlink, size: 0, mtime: node.stat.mtimeNs,
                                                  symlinkTarget: String(decoding: node.bytes, as: UTF8.self), stat: node.stat))
            case .file:
                outcome.filesHashed += 1
                outcome.changed.append(LocalEntry(path: node.path, kind: .file, size: node.stat.size, mtime: node.stat.mtimeNs,
                                                  permissions: Permissions(mode: node.mode, kind: .file), attributes: node.attributes,
                                                  chunks: chunker.chunks(of: node.bytes),
                                                  stat: node.stat))
            }
        }
        return outcome
    }

    public func stat(_ path: RelativePath) -> FileStat? {
        locked { $0.stat(at: path) }
    }

    public func read(_ file: ChunkLocation.File, offset: UInt64, size: UInt32) throws -> Data {
        let bytes = try locked { try $0.contents(of: file) }
        guard size > 0 else { return Data() }
        guard offset <= UInt64(bytes.count), UInt64(bytes.count) - offset >= UInt64(size) else {
            throw DiskError(.io, "'\(file)' ends before \(size) bytes at \(offset): it changed while being read")
        }
        return Data(bytes[Int(offset)..<Int(offset) + Int(size)])
    }

    public func copy(_ file: ChunkLocation.File, offset: UInt64, length: UInt64, into staged: any StagedFile, at target: UInt64) throws {
        guard let staged = staged as? SimulatedStagedFile, staged.disk === self else {
            throw DiskError(.io, "not a staged file of this disk")
        }
        try locked { tree in
            let bytes = try tree.contents(of: file)
            guard let number = tree.temporary[staged.name] else { throw DiskError(.io, "temp file already finished") }
            try tree.injectedFailure("copy into '\(staged.name)'")
            guard offset <= UInt64(bytes.count), UInt64(bytes.count) - offset >= length else {
                throw DiskError(.io, "'\(staged.name)': the source ended before \(length) bytes were copied")
            }
            tree.write(bytes[Int(offset)..<Int(offset + length)], at: target, into: number)
        }
    }

    public func stage() throws -> any StagedFile {
        let name = try locked { tree in
            try tree.injectedFailure("create temp file")
            let name = tree.temporaryName("t")
            tree.attach(tree.makeInode(.file, durable: false), at: .temporary(name))
            return name
        }
        return SimulatedStagedFile(disk: self, name: name)
    }

    public func stageResumable(key: String) throws -> (file: any StagedFile, resumed: Bool) {
        let name = DiskTree.partialPrefix + key
        let resumed: Bool? = try locked { tree in
            guard !tree.heldPartials.contains(name) else { return nil }
            try tree.injectedFailure("open partial file")
            tree.heldPartials.insert(name)
            if tree.temporary[name] != nil { return true }
            tree.attach(tree.makeInode(.file, durable: false), at: .temporary(name))
            return false
        }
        guard let resumed else { return (try stage(), false) }
        return (SimulatedStagedFile(disk: self, name: name, resumable: true), resumed)
    }

    public func removeAbandonedPartials() {
        locked { tree in
            for name in tree.temporary.keys.sorted() where name.hasPrefix(DiskTree.partialPrefix) && !tree.heldPartials.contains(name) {
                tree.detach(.temporary(name))
            }
        }
    }

    public func commit(_ staged: any StagedFile, to path: RelativePath, metadata: FileMetadata, keepReplacedAs: String?) throws -> FileStat {
        switch commitAll([StagedCommit(staged: staged, path: path, metadata: metadata, keepReplacedAs: keepReplacedAs)])[path] {
        case .success(let stat): return stat
        case .failure(let error): throw error
        case nil: throw DiskError(.io, "'\(path)' was not committed")
        }
    }

    public func commitAll(_ files: [StagedCommit]) -> [RelativePath: Result<FileStat, DiskError>] {
        locked { tree in
            var results: [RelativePath: Result<FileStat, DiskError>] = [:]
            var taken: Set<String> = []
            for file in files {
                results[file.path] = Result { () throws(DiskError) in
                    let name = try take(file.staged, in: tree, skipping: taken)
                    taken.insert(name)
                    if case .unchanged(let seen) = file.replacing, tree.stat(at: file.path) != seen {
                        tree.detach(.temporary(name))
                        throw DiskError(.alreadyExists, "'\(file.path)' changed on disk before it could be replaced; not replacing it")
                    }
                    var kept: String?
                    if let keep = file.keepReplacedAs, file.replacing != .nothing {
                        guard let old = tree.tree[file.path], tree.inodes[old]!.kind == .file else {
                            tree.detach(.temporary(name))
                            throw DiskError(.alreadyExists, "'\(file.path)' is no longer the file to replace; not replacing it")
                        }
                        tree.sync(old)
                        tree.attach(old, at: .history(keep))
                        kept = keep
                    }
                    do throws(DiskError) {
                        return try tree.commit(name, to: .tree(file.path), metadata: file.metadata, replacing: file.replacing != .nothing)
                    } catch {
                        if let kept { tree.detach(.history(kept)) }
                        throw error
                    }
                }
            }
            return results
        }
    }

    public func commitNew(_ staged: any StagedFile, to path: RelativePath, metadata: FileMetadata) throws -> FileStat {
        try locked { tree in
            let name = try take(staged, in: tree)
            return try tree.commit(name, to: .tree(path), metadata: metadata, replacing: false)
        }
    }

    public func versionName(of path: RelativePath, id: String) throws -> String {
        try VersionNames.name(of: path, id: id)
    }

    public func storedVersionIDs(of path: RelativePath) throws -> Set<String> {
        let prefix = VersionNames.prefix(of: path)
        return Set(locked { $0.versions.keys.filter { $0.hasPrefix(prefix) && DiskTree.isTopLevel($0) } }
            .compactMap { VersionNames.id(in: $0, prefix: prefix) })
    }

    public func commitVersion(_ staged: any StagedFile, of path: RelativePath, id: String, metadata: FileMetadata) throws {
        try locked { tree in
            let name = try take(staged, in: tree)
            let version: String
            do { version = try VersionNames.name(of: path, id: id) } catch {
                tree.detach(.temporary(name))
                throw error
            }
            // A package's version under the same name was a tree.
            tree.removeTree(.version(version))
            _ = try tree.commit(name, to: .version(version), metadata: metadata, replacing: true)
        }
    }

    public func removeVersion(of path: RelativePath, id: String) throws {
        let version = try VersionNames.name(of: path, id: id)
        locked { $0.removeTree(.version(version)) }
    }

    public func storedVersionNames() throws -> [(name: String, changedNs: Int64)] {
        locked { tree in
            tree.versions.filter { DiskTree.isTopLevel($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, tree.inodes[$0.value]!.ctime) }
        }
    }

    public func removeVersion(named name: String) throws {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw DiskError(.io, "'\(name)' is not a stored version's name")
        }
        locked { $0.removeTree(.version(name)) }
    }

    public func setMetadata(of path: RelativePath, metadata: FileMetadata, expected: FileStat) throws -> FileStat {
        try locked { tree throws(DiskError) in try tree.setMetadata(of: path, metadata: metadata, expected: expected) }
    }

    public func makeDirectory(_ path: RelativePath, permissions: Permissions, attributes: ExtendedAttributes, mtime: Int64?) throws -> FileStat {
        try locked { tree in
            var stat = try tree.makeFolders(path, permissions: permissions, attributes: attributes)
            if let mtime { stat = try tree.setFolderTime(path, mtime: mtime) }
            return stat
        }
    }

    public func setFolderTime(_ path: RelativePath, mtime: Int64) throws -> FileStat {
        try locked { try $0.setFolderTime(path, mtime: mtime) }
    }

    public func folderEntry(_ path: RelativePath) -> LocalEntry? {
        locked { tree in
            // A package (or a path inside one) is no folder to the scanner.
            guard let node = tree.scannable(under: path).first, node.path == path, node.kind == .folder, node.package == nil else { return nil }
            return LocalEntry(path: path, kind: .directory, size: 0, mtime: node.stat.mtimeNs,
                              permissions: Permissions(mode: node.mode, kind: .directory), attributes: node.attributes, stat: node.stat)
        }
    }

    public func makeSymlink(_ path: RelativePath, target: String, mtime: Int64) throws -> FileStat {
        try locked { tree in
            let name = tree.temporaryName("l")
            tree.attach(tree.makeInode(.symlink, bytes: Array(target.utf8), durable: true, mtime: mtime), at: .temporary(name))
            do throws(DiskError) {
                try tree.parentFolders(of: path, create: true)
                if tree.kind(at: path) == .folder { throw DiskError(.io, "rename link into place '\(path)' failed: Is a directory") }
            } catch {
                tree.detach(.temporary(name))
                throw error
            }
            tree.move(.temporary(name), to: .tree(path))
            return tree.stat(at: path)!
        }
    }

    public func newHistoryName() -> String { locked { $0.temporaryName("h") } }

    public func removeKeeping(_ path: RelativePath, as name: String, expected: FileStat?) throws -> Bool {
        try locked { tree throws(DiskError) in
            try tree.parentFolders(of: path, create: false)
            guard let number = tree.tree[path] else { throw DiskError(.notFound, "remove '\(path)' failed: nothing is there") }
            guard tree.inodes[number]!.kind == .file else { return false }
            if let expected, tree.stat(of: number) != expected {
                throw DiskError(.alreadyExists, "'\(path)' changed on disk before it could be deleted; not deleting it")
            }
            tree.sync(number)
            tree.move(.tree(path), to: .history(name))
            return true
        }
    }

    public func copyToHistory(_ path: RelativePath, as name: String, expected: FileStat) throws {
        try locked { tree throws(DiskError) in
            guard let number = tree.tree[path], tree.inodes[number]!.kind == .file, tree.stat(of: number) == expected else {
                throw DiskError(.alreadyExists, "'\(path)' changed on disk before it could be kept; not keeping it")
            }
            let inode = tree.inodes[number]!
            tree.attach(tree.makeInode(.file, bytes: inode.live, durable: true, mtime: inode.mtime), at: .history(name))
        }
    }

    public func moveVersionToHistory(named version: String, as name: String) throws {
        try locked { tree throws(DiskError) in
            guard tree.versions[version] != nil else { throw DiskError(.notFound, "version file \(version) is missing") }
            tree.move(.version(version), to: .history(name))
        }
    }

    public func removeHistory(named name: String) throws { locked { $0.removeTree(.history(name)) } }

    public func historyNames() throws -> Set<String> { locked { Set($0.history.keys.filter(DiskTree.isTopLevel)) } }

    /// The kept versions' bytes by name, for checking that nothing was lost; a kept package
    /// (a tree, read with ``readStoredPackage(_:inHistory:)``) has none.
    public func keptVersions() -> [String: [UInt8]] {
        locked { tree in tree.history.filter { DiskTree.isTopLevel($0.key) }.mapValues { tree.inodes[$0]!.live } }
    }

    public func remove(_ path: RelativePath) throws {
        try locked { tree in
            try tree.parentFolders(of: path, create: false)
            guard let kind = tree.kind(at: path) else { throw DiskError(.notFound, "remove '\(path)' failed: nothing is there") }
            if kind == .folder, let kept = tree.children(of: path).first(where: { !$0.name.hasSuffix(".nosync") }) {
                throw DiskError(.notEmpty, "folder '\(path)' still holds '\(kept.name)', which is synced; remove that first")
            }
            tree.removeTree(path)
        }
    }

    /// The temp file name of a staged file of this disk that is neither committed nor discarded.
    private func take(_ staged: any StagedFile, in tree: DiskTree, skipping taken: Set<String> = []) throws(DiskError) -> String {
        guard let staged = staged as? SimulatedStagedFile, staged.disk === self,
              tree.temporary[staged.name] != nil, !taken.contains(staged.name)
        else { throw DiskError(.io, "temp file already finished") }
        return staged.name
    }
}

/// A file being assembled in the simulated `.ubiq/tmp/`: volatile until committed, gone
/// after a crash; committing or discarding it twice does nothing.
final class SimulatedStagedFile: StagedFile {
    let disk: SimulatedDisk
    let name: String
    let resumable: Bool

    init(disk: SimulatedDisk, name: String, resumable: Bool = false) {
        self.disk = disk
        self.name = name
        self.resumable = resumable
    }

    /// Keeps a resumable file that holds something; an empty one is deleted.
    func abandon() {
        guard resumable else { return discard() }
        disk.locked { tree in
            tree.heldPartials.remove(name)
            if let number = tree.temporary[name], tree.inodes[number]!.live.isEmpty { tree.detach(.temporary(name)) }
        }
    }

    func reserve(_ ranges: [Range<UInt64>]) throws {
        let size = ranges.map(\.upperBound).max() ?? 0
        try disk.locked { tree in
            guard let number = tree.temporary[name] else { throw DiskError(.io, "temp file already finished") }
            try tree.injectedFailure("reserve space for '\(name)'")
            let count = UInt64(tree.inodes[number]!.live.count)
            if size > count { tree.write(repeatElement(0, count: Int(size - count)), at: count, into: number) }
        }
    }

    func write(_ bytes: some ContiguousBytes, at offset: UInt64) throws {
        let bytes = bytes.withUnsafeBytes { Array($0) }
        try disk.locked { tree in
            guard let number = tree.temporary[name] else { throw DiskError(.io, "temp file already finished") }
            try tree.injectedFailure("write '\(name)'")
            tree.write(bytes, at: offset, into: number)
        }
    }

    func setSize(_ size: UInt64) throws {
        try disk.locked { tree in
            guard let number = tree.temporary[name] else { throw DiskError(.io, "temp file already finished") }
            try tree.injectedFailure("truncate '\(name)'")
            let count = UInt64(tree.inodes[number]!.live.count)
            if size > count {
                tree.write(repeatElement(0, count: Int(size - count)), at: count, into: number)
            } else {
                tree.inodes[number]!.live.removeLast(Int(count - size))
            }
        }
    }

    func read(_ size: UInt32, at offset: UInt64) throws -> Data {
        try disk.locked { tree in
            guard let number = tree.temporary[name] else { throw DiskError(.io, "temp file already finished") }
            let live = tree.inodes[number]!.live
            guard offset + UInt64(size) <= UInt64(live.count) else { throw DiskError(.io, "'\(name)' ends before \(size) bytes at \(offset)") }
            return Data(live[Int(offset)..<Int(offset) + Int(size)])
        }
    }

    func discard() {
        disk.locked { $0.detach(.temporary(name)) }
    }
}
