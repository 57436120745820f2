import UbiqFileSystem
import UbiqIndex
import UbiqModel
import UbiqSync

/// The whole state of a ``SimulatedDisk``, changed only under its lock: a namespace of
/// links (the container tree, `.ubiq/tmp/`, `.ubiq/versions/` and `.ubiq/history/`, whose
/// folder trees are kept as `NAME/inner/path`) to numbered inodes.
/// Every change of a link is durable at once; file bytes are durable only once synced.
struct DiskTree: Sendable {
    enum Kind: Sendable { case file, symlink, folder }

    /// Where a link lives: in the container, or in one of the agent's flat folders.
    enum Place: Hashable, Sendable {
        case tree(RelativePath)
        case temporary(String)
        case version(String)
        case history(String)
    }

    struct Inode: Sendable {
        var kind: Kind
        /// File bytes as reads see them; a link's target.
        var live: [UInt8]
        /// What a crash leaves of a file: its bytes and mtime as of its last sync.
        var durable: [UInt8]
        var durableMtime: Int64
        /// The permission bits (`chmod`); a new file gets 0644, a new folder 0755.
        var mode: UInt32
        var mtime: Int64
        var ctime: Int64
        var links = 0
        /// The `user.` extended attributes (`setfattr`).
        var attributes = ExtendedAttributes.empty
    }

    var inodes: [UInt64: Inode] = [:]
    var tree: [RelativePath: UInt64] = [:]
    var temporary: [String: UInt64] = [:]
    /// Resumable staged files an attempt holds (an exclusive `flock` on the real disk).
    var heldPartials: Set<String> = []
    var versions: [String: UInt64] = [:]
    var history: [String: UInt64] = [:]
    let root: UInt64 = 1
    var nextInode: UInt64 = 2
    var nextName: UInt64 = 1
    var failuresLeft = 0
    /// The folder's marker (`.ubiq/folder`), written durably: a crash keeps it.
    var marker: FolderMarker?
    /// What stands at the container's path while its disk is away
    /// (``SimulatedDisk/goAway(_:)``); nil for the disk itself.
    var standIn: DiskAbsence?
    /// The simulated wall time of the operation in progress.
    var time: Int64 = 0
    /// Which folders are file packages: the scan reads each whole, as one entry.
    let packages: PackageRules

    init(packages: PackageRules = .none) {
        self.packages = packages
        inodes[root] = Inode(kind: .folder, live: [], durable: [], durableMtime: 0, mode: 0o755, mtime: 0, ctime: 0, links: 1)
    }

    subscript(place: Place) -> UInt64? {
        get {
            switch place {
            case .tree(let path): tree[path]
            case .temporary(let name): temporary[name]
            case .version(let name): versions[name]
            case .history(let name): history[name]
            }
        }
        set {
            switch place {
            case .tree(let path): tree[path] = newValue
            case .temporary(let name): temporary[name] = newValue
            case .version(let name): versions[name] = newValue
            case .history(let name): history[name] = newValue
            }
        }
    }

    func kind(at path: RelativePath) -> Kind? { tree[path].flatMap { inodes[$0]?.kind } }

    func stat(of number: UInt64) -> FileStat {
        let inode = inodes[number]!
        return FileStat(size: inode.kind == .folder ? 4096 : UInt64(inode.live.count), mtimeNs: inode.mtime, ctimeNs: inode.ctime, inode: number)
    }

    func stat(at path: RelativePath) -> FileStat? { tree[path].map(stat(of:)) }

    // MARK: - Links

    mutating func makeInode(_ kind: Kind, bytes: [UInt8] = [], durable: Bool, mtime: Int64? = nil) -> UInt64 {
        let number = nextInode
        nextInode += 1
        let mtime = mtime ?? time
        inodes[number] = Inode(kind: kind, live: bytes, durable: durable ? bytes : [], durableMtime: mtime,
                               mode: kind == .folder ? 0o755 : 0o644, mtime: mtime, ctime: time)
        return number
    }

    mutating func temporaryName(_ prefix: String) -> String {
        defer { nextName += 1 }
        return prefix + "-" + String(nextName, radix: 16)
    }

    /// Adds a link to `number` at an empty `place`.
    mutating func attach(_ number: UInt64, at place: Place) {
        self[place] = number
        inodes[number]!.links += 1
        inodes[number]!.ctime = time
        touchParent(of: place)
    }

    /// Removes the link at `place` (not a folder with entries); the inode goes with its last link.
    mutating func detach(_ place: Place) {
        if case .temporary(let name) = place { heldPartials.remove(name) }
        guard let number = self[place] else { return }
        self[place] = nil
        inodes[number]!.links -= 1
        if inodes[number]!.links == 0 {
            inodes[number] = nil
        } else {
            inodes[number]!.ctime = time
        }
        touchParent(of: place)
    }

    /// `rename(2)`: the caller has checked that whatever is at `destination` may be replaced.
    /// A folder takes what is inside it along, from any place to any other.
    mutating func move(_ source: Place, to destination: Place) {
        guard let number = self[source], source != destination else { return }
        if case .temporary(let name) = source { heldPartials.remove(name) }
        detach(destination)
        let inside = inodes[number]!.kind == .folder ? descendants(of: source) : []
        self[source] = nil
        self[destination] = number
        for place in inside {
            let moved = self[place]
            self[place] = nil
            self[Self.rebase(place, from: source, to: destination)] = moved
        }
        inodes[number]!.ctime = time
        touchParent(of: source)
        touchParent(of: destination)
    }

    private mutating func touchParent(of place: Place) {
        guard case .tree(let path) = place else { return }
        let folder = path.parent.flatMap { tree[$0] } ?? root
        inodes[folder]!.mtime = time
        inodes[folder]!.ctime = time
    }

    func descendants(of folder: RelativePath) -> [RelativePath] {
        let prefix = folder.rawValue + "/"
        return tree.keys.filter { $0.rawValue.hasPrefix(prefix) }.sorted()
    }

    func children(of folder: RelativePath) -> [RelativePath] {
        descendants(of: folder).filter { $0.parent == folder }
    }

    /// `rm -r`, deepest entries first.
    mutating func removeTree(_ path: RelativePath) {
        removeTree(.tree(path))
    }

    // MARK: - Folders

    /// Checks, like opening each parent with `O_NOFOLLOW | O_DIRECTORY`, that every parent of
    /// `path` is a real folder, creating missing ones when asked.
    mutating func parentFolders(of path: RelativePath, create: Bool) throws(DiskError) {
        var components = path.components.dropLast()[...]
        var folder: RelativePath?
        while let name = components.popFirst() {
            let current = try! folder.map { try $0.appending(String(name)) } ?? RelativePath(String(name))
            folder = current
            switch kind(at: current) {
            case .folder: continue
            case .symlink:
                throw DiskError(.escapesContainer, "'\(current)' is a symbolic link; ubiq never follows links in parent folders")
            case .file: throw DiskError(.io, "'\(current)' is not a folder")
            case nil:
                guard create else { throw DiskError(.notFound, "folder '\(current)' does not exist") }
                attach(makeInode(.folder, durable: true), at: .tree(current))
            }
        }
    }

    /// `mkdir -p`: an existing folder is fine, anything else in the way is not.
    /// `chmod` and `utimens` of the file at `path` if its stat is still `expected`, then `fsync`.
    mutating func setMetadata(of path: RelativePath, metadata: FileMetadata, expected: FileStat) throws(DiskError) -> FileStat {
        try injectedFailure("set the metadata of '\(path)'")
        guard let number = tree[path], inodes[number]!.kind == .file, stat(of: number) == expected else {
            throw DiskError(.alreadyExists, "'\(path)' changed on disk before its permissions and mtime could be set")
        }
        finish(number, metadata)
        sync(number)
        return stat(of: number)
    }

    /// `setxattr`, `chmod` and `utimens` of an inode.
    mutating func finish(_ number: UInt64, _ metadata: FileMetadata) {
        inodes[number]!.attributes = metadata.attributes
        inodes[number]!.mode = metadata.permissions.bits
        inodes[number]!.mtime = metadata.mtime
        inodes[number]!.ctime = time
    }

    /// `utimensat` of the folder at `path`.
    mutating func setFolderTime(_ path: RelativePath, mtime: Int64) throws(DiskError) -> FileStat {
        try parentFolders(of: path, create: false)
        guard let number = tree[path], inodes[number]!.kind == .folder else {
            throw DiskError(.notFound, "'\(path)' is no longer a folder")
        }
        inodes[number]!.mtime = mtime
        inodes[number]!.ctime = time
        return stat(of: number)
    }

    /// `mkdir -p`, then `chmod` and `setxattr` of the last folder when `permissions` and
    /// `attributes` are given.
    mutating func makeFolders(_ path: RelativePath, permissions: Permissions? = nil, attributes: ExtendedAttributes? = nil) throws(DiskError) -> FileStat {
        try parentFolders(of: path, create: true)
        switch kind(at: path) {
        case .folder: break
        case .symlink, .file: throw DiskError(.alreadyExists, "'\(path)' exists and is not a folder")
        case nil: attach(makeInode(.folder, durable: true), at: .tree(path))
        }
        if let permissions, let number = tree[path], inodes[number]!.mode != permissions.bits {
            inodes[number]!.mode = permissions.bits
            inodes[number]!.ctime = time
        }
        if let attributes, let number = tree[path], inodes[number]!.attributes != attributes {
            inodes[number]!.attributes = attributes
            inodes[number]!.ctime = time
        }
        return stat(at: path)!
    }

    // MARK: - Faults and crashes

    mutating func injectedFailure(_ what: String) throws(DiskError) {
        if standIn != nil { throw DiskError(.notFound, "\(what): '.ubiq/tmp' does not exist (the disk is not there)") }
        guard failuresLeft > 0 else { return }
        failuresLeft -= 1
        throw DiskError(.io, "\(what): simulated I/O error")
    }

    mutating func sync(_ number: UInt64) {
        inodes[number]!.durable = inodes[number]!.live
        inodes[number]!.durableMtime = inodes[number]!.mtime
    }

    /// What a power cut leaves: files as of their last sync, no temp files; every link kept.
    mutating func crash() {
        for (number, inode) in inodes where inode.kind == .file {
            if inode.live != inode.durable || inode.mtime != inode.durableMtime {
                inodes[number]!.live = inode.durable
                inodes[number]!.mtime = inode.durableMtime
                inodes[number]!.ctime = time
            }
        }
        removeTemporaryFiles()
    }

    /// Deletes staged files, but resumable ones when `keepingPartials` (a restart: nobody
    /// holds them any more).
    mutating func removeTemporaryFiles(keepingPartials: Bool = false) {
        heldPartials = []
        for name in temporary.keys.sorted() where !(keepingPartials && name.hasPrefix(Self.partialPrefix)) {
            detach(.temporary(name))
        }
    }

    static let partialPrefix = "p-"

}

extension DiskTree {
    /// One path the scanner would look at, as it was when the scan began.
    struct Scanned: Sendable {
        var path: RelativePath
        var kind: Kind
        var stat: FileStat
        var bytes: [UInt8]
        var mode: UInt32
        var attributes: ExtendedAttributes
        /// A file package's folder, read whole: what is inside it is no path of its own.
        var package: PackageSnapshot?
    }

    /// Every path a scan of `subtree` (or of everything) reports, skipping `*.nosync` names;
    /// `.ubiq/` is not in the tree. A subtree that is missing or below a link or file gives none;
    /// one inside a package gives the package.
    func scannable(under subtree: RelativePath?) -> [Scanned] {
        let paths: [RelativePath]
        if let subtree {
            let subtree = packages.package(containing: subtree) ?? subtree
            guard tree[subtree] != nil else { return [] }
            paths = [subtree] + descendants(of: subtree)
        } else {
            paths = tree.keys.sorted()
        }
        return paths.filter { $0.isSyncable && packages.package(containing: $0) == nil }.map { path in
            let number = tree[path]!, inode = inodes[number]!
            let package = inode.kind == .folder && packages.isPackageName(path.name) ? packageSnapshot(at: .tree(path)) : nil
            return Scanned(path: path, kind: inode.kind, stat: stat(of: number), bytes: inode.live, mode: inode.mode,
                           attributes: inode.attributes, package: package)
        }
    }

    /// The bytes of a file or stored version, opened without following links.
    mutating func contents(of file: ChunkLocation.File) throws(DiskError) -> [UInt8] {
        switch file {
        case .item(let path):
            try parentFolders(of: path, create: false)
            switch kind(at: path) {
            case .file: return inodes[tree[path]!]!.live
            case .symlink: throw DiskError(.escapesContainer, "'\(path)' is a symbolic link, not a file")
            case .folder: throw DiskError(.io, "reading '\(path)' failed: Is a directory")
            case nil: throw DiskError(.notFound, "open '\(path)' failed: No such file or directory")
            }
        case .version(let name) where name.contains("/"):
            return try member(name, like: .version(name))
        case .version(let name):
            guard !name.hasPrefix(".") else { throw DiskError(.escapesContainer, "bad version name") }
            guard let number = versions[name] else { throw DiskError(.notFound, "version file \(name) is missing") }
            guard inodes[number]!.kind == .file else { throw DiskError(.notFound, "version file \(name) is not a file") }
            return inodes[number]!.live
        case .history(let name) where name.contains("/"):
            return try member(name, like: .history(name))
        case .history(let name):
            guard let number = history[name] else { throw DiskError(.notFound, "kept version \(name) is missing") }
            return inodes[number]!.live
        }
    }

    mutating func write(_ bytes: some Collection<UInt8>, at offset: UInt64, into number: UInt64) {
        let start = Int(offset), end = start + bytes.count
        if inodes[number]!.live.count < end {
            inodes[number]!.live.append(contentsOf: repeatElement(0, count: end - inodes[number]!.live.count))
        }
        inodes[number]!.live.replaceSubrange(start..<end, with: bytes)
        inodes[number]!.mtime = time
        inodes[number]!.ctime = time
    }

    /// Finishes the temp file `name` (mode, mtime, sync) and renames it to `place`, creating
    /// missing parent folders; a folder there, or anything unless `replacing`, is refused.
    /// On failure the temp file is deleted.
    mutating func commit(_ name: String, to place: Place, metadata: FileMetadata, replacing: Bool) throws(DiskError) -> FileStat {
        let number = temporary[name]!
        do throws(DiskError) {
            try injectedFailure("commit '\(name)'")
            finish(number, metadata)
            sync(number)
            if case .tree(let path) = place {
                try parentFolders(of: path, create: true)
                if tree[path] != nil && !replacing { throw DiskError(.alreadyExists, "'\(path)' already exists; not replacing it") }
                if kind(at: path) == .folder { throw DiskError(.io, "rename into place '\(path)' failed: Is a directory") }
            }
        } catch {
            detach(.temporary(name))
            throw error
        }
        move(.temporary(name), to: place)
        return stat(of: number)
    }
}

/// The real disk's names for kept versions (``SafeFileSystem``'s, so the simulator's index
/// records the same names), with its refusals as the engine's `DiskError`s.
enum VersionNames {
    static func name(of path: RelativePath, id: String) throws(DiskError) -> String {
        do { return try SafeFileSystem.versionName(of: path, id: id) } catch { throw DiskError(.io, error.message) }
    }

    static func prefix(of path: RelativePath) -> String { SafeFileSystem.versionPrefix(of: path) }

    /// The id in a stored name with this prefix; nil where the rest is not hex of UTF-8.
    static func id(in name: String, prefix: String) -> String? { SafeFileSystem.versionID(inName: name, prefix: prefix) }
}
