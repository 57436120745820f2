#if canImport(Glibc)
import Glibc
#endif
import Logging
import UbiqChunking
import UbiqModel

/// Walks a container and reports what changed since a baseline, hashing only files whose
/// stat facts differ. Never follows symbolic links; skips `.ubiq/` at the top, every
/// `*.nosync` name at any depth, what the ignore rules name (never entering an ignored
/// folder), and sockets, fifos and devices. A file package is one entry: a path inside one
/// stands for the whole package.
///
/// Blocking: run it off the cooperative thread pool for large trees.
public struct ContainerScanner: Sendable {
    public let layout: ContainerLayout
    public let chunker: FileChunker
    /// Whether files and folders are described with their `user.` extended attributes; when
    /// not, entries carry none and the synced ones stay as they are.
    public var readsAttributes = true
    /// Whether entries carry their permission bits; not under `ignore_permissions`, where the
    /// synced ones stay.
    public var readsPermissions = true
    /// Which folders are file packages, read whole as one entry (``PackageReader``).
    public var packages = PackageRules.none
    let logger: Logger
    /// Called after a file is read and before it is checked for changes; tests change the file here.
    var afterReading: (@Sendable (RelativePath) -> Void)?
    /// How many changed entries a scan given `changes` collects before it hands them on.
    public var batchSize = 8192

    public init(layout: ContainerLayout, chunker: FileChunker = FileChunker(), logger: Logger) {
        self.layout = layout
        self.chunker = chunker
        self.logger = logger
    }

    /// Scans the whole container, or only `subtree` (a folder's whole subtree, or one file
    /// or link). A missing subtree gives an empty `seen`; a missing root throws `.notFound`,
    /// so an unmounted container is never mistaken for one whose files were all deleted.
    ///
    /// `changes`, where given, takes each `batchSize` changed entries as the walk finds them,
    /// so a tree of a million new files is never held at once; the result's `changed` holds
    /// the rest. Where it returns false the walk stops, and the result is incomplete.
    public func scan(under subtree: RelativePath? = nil, baseline: some ScanBaseline, ignoring: IgnoreRules = .none,
                     changes: (([LocalEntry]) -> Bool)? = nil) throws(FileSystemError) -> ScanResult
    {
        let root = try openRoot()
        var walk = ScanWalk(scanner: self, baseline: baseline, ignoring: ignoring, changes: changes)
        if let subtree {
            walk.visit(subtree, root: root, recursive: true)
        } else {
            let (names, error) = Posix.directoryEntries(of: root.fd)
            if let error { throw FileSystemError.posix(error, "read folder", layout.root) }
            walk.visitChildren(names, of: root.fd, prefix: nil)
        }
        return described(walk.result)
    }

    /// Looks at one path only: a folder is reported without descending into it.
    public func scanSingle(_ path: RelativePath, baseline: some ScanBaseline, ignoring: IgnoreRules = .none) throws(FileSystemError)
        -> ScanResult
    {
        let root = try openRoot()
        var walk = ScanWalk(scanner: self, baseline: baseline, ignoring: ignoring)
        walk.visit(path, root: root, recursive: false)
        return described(walk.result)
    }

    /// The result with what this container does not sync left out of its entries.
    private func described(_ result: ScanResult) -> ScanResult {
        var result = result
        result.changed = described(result.changed)
        return result
    }

    fileprivate func described(_ entries: [LocalEntry]) -> [LocalEntry] {
        guard !readsPermissions else { return entries }
        var entries = entries
        for index in entries.indices { entries[index].permissions = nil }
        return entries
    }

    private func openRoot() throws(FileSystemError) -> OwnedDescriptor {
        let fd = open(layout.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError.posix(errno, "open container root", layout.root) }
        return OwnedDescriptor(fd)
    }
}

/// The state of one scan: the result being built and the baseline it compares against.
private struct ScanWalk<Baseline: ScanBaseline> {
    let scanner: ContainerScanner
    let baseline: Baseline
    let ignoring: IgnoreRules
    let changes: (([LocalEntry]) -> Bool)?
    var result = ScanResult()
    /// `changes` asked for no more.
    var stopped = false

    init(scanner: ContainerScanner, baseline: Baseline, ignoring: IgnoreRules, changes: (([LocalEntry]) -> Bool)? = nil) {
        self.scanner = scanner
        self.baseline = baseline
        self.ignoring = ignoring
        self.changes = changes
        result.seen.reserveCapacity(baseline.knownCount)
    }

    /// A new or changed entry; a full batch goes to `changes`.
    mutating func found(_ entry: LocalEntry) {
        result.changed.append(entry)
        guard let changes, result.changed.count >= scanner.batchSize else { return }
        let batch = scanner.described(result.changed)
        result.changed = []
        if !changes(batch) { stopped = true }
    }

    mutating func visit(_ path: RelativePath, root: OwnedDescriptor, recursive: Bool) {
        guard path.isSyncable else { return }
        if let package = scanner.packages.package(containing: path) { return visit(package, root: root, recursive: recursive) }
        // The folders above are not walked: a path inside an ignored one is ignored.
        if let folder = path.parent, ignoring.ignoring(folder, isDirectory: true) != nil { return }
        let components = path.components
        var parent = root
        for component in components.dropLast() {
            let fd = openat(parent.fd, String(component), Posix.directoryFlags)
            guard fd >= 0 else {
                let code = errno
                if code != ENOENT && code != ENOTDIR && code != ELOOP {
                    fail(path, .posix(code, "open folder", String(component)))
                }
                return
            }
            parent = OwnedDescriptor(fd)
        }
        visitEntry(named: String(components.last!), in: parent.fd, path: path, recursive: recursive)
    }

    mutating func visitChildren(_ names: [[UInt8]], of dirfd: Int32, prefix: RelativePath?) {
        for bytes in names {
            if stopped { return }
            if prefix == nil && bytes == Array(RelativePath.agentFolder.utf8) { continue }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                result.invalidNames.append(invalidName(prefix, NameBytes.escaped(bytes)))
                continue
            }
            if name.hasSuffix(".nosync") { continue }
            let raw = prefix.map { $0.rawValue + "/" + name } ?? name
            guard let path = try? RelativePath(raw) else {
                result.invalidNames.append(raw)
                continue
            }
            visitEntry(named: name, in: dirfd, path: path, recursive: true)
        }
    }

    private func invalidName(_ prefix: RelativePath?, _ name: String) -> String {
        prefix.map { $0.rawValue + "/" + name } ?? name
    }

    private mutating func saw(_ path: RelativePath) {
        result.entries += 1
        if let known = baseline.known(path) { result.seen.insert(known) }
    }

    /// A path seen that was gone when it was opened.
    private mutating func unsaw(_ path: RelativePath) {
        result.entries -= 1
        result.seen.remove(path)
    }

    mutating func visitEntry(named name: String, in dirfd: Int32, path: RelativePath, recursive: Bool) {
        var st = stat()
        guard fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            let code = errno
            if code != ENOENT { fail(path, .posix(code, "lstat", path.rawValue)) }
            return
        }
        let fileStat = FileStat(st)
        let unchanged = baseline.stat(of: path) == fileStat
        let kind = Posix.kind(of: st.st_mode)
        if let pattern = ignoring.ignoringItself(path, isDirectory: kind == .directory) {
            result.ignored[path] = pattern
            return
        }
        switch kind {
        case .regular:
            saw(path)
            if st.st_nlink > 1 { result.linked[path] = UInt64(st.st_ino) }
            if !unchanged { hashFile(named: name, in: dirfd, path: path) }
        case .directory where scanner.packages.isPackageName(Substring(name)):
            readPackage(named: name, in: dirfd, path: path, stat: st)
        case .directory:
            saw(path)
            // Opened once: for its attributes where it changed, and for what is inside.
            let folder = recursive || (!unchanged && scanner.readsAttributes)
                ? openFolder(named: name, in: dirfd, path: path, reporting: recursive) : nil
            if !unchanged {
                found(LocalEntry(path: path, kind: .directory, size: 0, mtime: fileStat.mtimeNs,
                                                 permissions: Permissions(mode: UInt32(st.st_mode), kind: .directory),
                                                 attributes: folder.flatMap { attributes(of: $0.fd, path: path) }, stat: fileStat))
            }
            if recursive, let folder { visitChildren(of: folder, path: path) }
        case .symlink:
            guard let target = Posix.readLink(at: dirfd, name) else {
                let code = errno
                if code != ENOENT { fail(path, .posix(code, "read link", path.rawValue), kind: .symlink) }
                return
            }
            saw(path)
            if !unchanged {
                found(LocalEntry(
                    path: path, kind: .symlink, size: 0, mtime: fileStat.mtimeNs, symlinkTarget: target, stat: fileStat))
            }
        case .other:
            return
        }
    }

    /// `reporting`: a folder that cannot be opened is unstable or a failure of the scan
    /// (when its inside is to be walked).
    private mutating func openFolder(named name: String, in dirfd: Int32, path: RelativePath, reporting: Bool) -> OwnedDescriptor? {
        let fd = openat(dirfd, name, Posix.directoryFlags)
        guard fd >= 0 else {
            let code = errno
            guard reporting else { return nil }
            if code == ENOENT || code == ENOTDIR || code == ELOOP {
                result.unstable.append(path)  // replaced since the lstat
            } else {
                fail(path, .posix(code, "open folder", path.rawValue), kind: .directory)
            }
            return nil
        }
        return OwnedDescriptor(fd)
    }

    private mutating func visitChildren(of folder: OwnedDescriptor, path: RelativePath) {
        let (names, error) = Posix.directoryEntries(of: folder.fd)
        if let error {
            fail(path, .posix(error, "read folder", path.rawValue), kind: .directory)
            return
        }
        visitChildren(names, of: folder.fd, prefix: path)
    }

    /// Reads a package whole; where its fingerprint is the baseline's, nothing inside changed.
    private mutating func readPackage(named name: String, in dirfd: Int32, path: RelativePath, stat st: stat) {
        guard let folder = openFolder(named: name, in: dirfd, path: path, reporting: true) else { return }
        saw(path)
        let reader = PackageReader(chunker: scanner.chunker, readsAttributes: scanner.readsAttributes)
        let reading: PackageReading
        do {
            reading = try reader.read(folder.fd, name: path.rawValue, previous: baseline.package(at: path))
        } catch {
            switch error {
            case .changing(let inside):
                scanner.logger.debug("package changed while it was read", metadata: ["path": "\(path)", "inside": "\(inside)"])
                result.unstable.append(path)
            case .failed(let failure):
                fail(path, failure, kind: .package)
            }
            return
        }
        result.filesHashed += reading.filesHashed
        result.bytesHashed += reading.bytesHashed
        result.leftOutOfPackages += reading.leftOut
        guard baseline.stat(of: path) != reading.fingerprint else { return }
        found(LocalEntry(
            path: path, kind: .package, size: reading.content.size, mtime: FileStat(st).mtimeNs,
            permissions: Permissions(mode: UInt32(st.st_mode), kind: .package), attributes: attributes(of: folder.fd, path: path),
            chunks: reading.content.chunks, members: reading.content.members, stat: reading.fingerprint))
    }

    private mutating func hashFile(named name: String, in dirfd: Int32, path: RelativePath) {
        let fd = Posix.retrying { openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK) }
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT: unsaw(path)
            case ELOOP: result.unstable.append(path)
            default: fail(path, .posix(code, "open", path.rawValue), kind: .file)
            }
            return
        }
        let file = OwnedDescriptor(fd)
        var before = stat()
        guard fstat(file.fd, &before) == 0 else {
            fail(path, .posix(errno, "fstat", path.rawValue), kind: .file)
            return
        }
        guard Posix.kind(of: before.st_mode) == .regular else {
            result.unstable.append(path)
            return
        }
        let chunked: (chunks: [ChunkRef], size: UInt64)
        do {
            chunked = try scanner.chunker.chunks(ofFileDescriptor: file.fd)
        } catch {
            switch error.code {
            case .ioError(let code): fail(path, .posix(code, "read", path.rawValue), kind: .file)
            case .fileChanged, .invalidParameters: result.unstable.append(path)
            }
            return
        }
        result.filesHashed += 1
        result.bytesHashed += chunked.size
        scanner.afterReading?(path)
        var after = stat()
        let stat = FileStat(before)
        guard fstat(file.fd, &after) == 0, FileStat(after) == stat, chunked.size == stat.size else {
            scanner.logger.debug("file changed while it was hashed", metadata: ["path": "\(path)"])
            result.unstable.append(path)
            return
        }
        found(LocalEntry(
            path: path, kind: .file, size: stat.size, mtime: stat.mtimeNs,
            permissions: Permissions(mode: UInt32(before.st_mode), kind: .file), attributes: attributes(of: file.fd, path: path),
            chunks: chunked.chunks, stat: stat))
    }

    /// Nil where the attributes cannot travel: switched off, past the limit (reported), or
    /// unreadable (logged); the synced ones stay.
    private mutating func attributes(of fd: Int32, path: RelativePath) -> ExtendedAttributes? {
        guard scanner.readsAttributes else { return nil }
        switch AttributeIO.read(fd) {
        case .attributes(let attributes):
            return attributes
        case .tooLarge(let bytes):
            result.oversizedAttributes[path] = bytes
            return nil
        case .failed(let code, let operation):
            scanner.logger.warning("cannot read extended attributes", metadata: [
                "path": "\(path)", "error": "\(FileSystemError.posix(code, operation, path.rawValue))"])
            return nil
        }
    }

    /// `kind`: what is at `path`, where the scanner got as far as seeing it.
    private mutating func fail(_ path: RelativePath, _ error: FileSystemError, kind: ItemKind? = nil) {
        scanner.logger.warning("cannot scan path", metadata: ["path": "\(path)", "error": "\(error)"])
        result.failures.append(ScanFailure(path: path, error: error, kind: kind))
    }
}
