import UbiqModel
import UbiqSync

/// What the simulator does to a disk besides the engine: applications editing files, power
/// cuts, and looking at the result. Client calls never follow symbolic links (a link where a
/// folder or file is expected throws) and throw `DiskError`: `.notFound` for a missing
/// parent or source, `.alreadyExists` for a name that is taken, `.notEmpty` for a rename
/// over a folder with entries, `.escapesContainer` for a link in a parent, `.io` otherwise.
extension SimulatedDisk {
    /// What is at one path, for comparing devices.
    public enum Entry: Hashable, Sendable {
        case folder(mtime: Int64, attributes: ExtendedAttributes = .empty)
        case file([UInt8], permissions: Permissions, mtime: Int64, attributes: ExtendedAttributes = .empty)
        case symlink(String, mtime: Int64)

        public var isFolder: Bool { if case .folder = self { true } else { false } }
        public var isSymlink: Bool { if case .symlink = self { true } else { false } }
        public var isFile: Bool { if case .file = self { true } else { false } }
    }

    /// Writes `bytes` as the whole file in place (`O_CREAT | O_TRUNC`; an existing file keeps
    /// its inode). Only `fsync` makes them survive a crash; a new file's name always does.
    public func clientWrite(_ path: RelativePath, _ bytes: [UInt8], fsync: Bool = false) throws {
        try clientLocked { tree in
            let number = try tree.clientFile(path)
            tree.inodes[number]!.live = []
            tree.write(bytes, at: 0, into: number)
            if fsync { tree.sync(number) }
        }
    }

    /// Adds `bytes` at the end of the file, creating it if missing.
    public func clientAppend(_ path: RelativePath, _ bytes: [UInt8], fsync: Bool = false) throws {
        try clientLocked { tree in
            let number = try tree.clientFile(path)
            tree.write(bytes, at: UInt64(tree.inodes[number]!.live.count), into: number)
            if fsync { tree.sync(number) }
        }
    }

    /// Makes what was written to the file so far survive a crash.
    public func clientFsync(_ path: RelativePath) throws {
        try clientLocked { tree in tree.sync(try tree.clientFile(path, create: false)) }
    }

    /// Saves like an editor: a new, synced inode renamed over the path, keeping the old
    /// file's permissions.
    public func clientSaveAtomically(_ path: RelativePath, _ bytes: [UInt8]) throws {
        try clientLocked { tree in
            try tree.parentFolders(of: path, create: false)
            let old = tree.tree[path].flatMap { tree.inodes[$0] }
            guard old?.kind != .folder else { throw DiskError(.io, "rename over '\(path)' failed: Is a directory") }
            let number = tree.makeInode(.file, bytes: bytes, durable: true)
            tree.inodes[number]!.mode = old?.kind == .file ? old!.mode : 0o644
            tree.detach(.tree(path))
            tree.attach(number, at: .tree(path))
        }
    }

    /// `rename(2)`: replaces a file or link, or an empty folder with a folder; parents must exist.
    public func clientRename(from source: RelativePath, to destination: RelativePath) throws {
        try clientLocked { tree in
            try tree.parentFolders(of: source, create: false)
            try tree.parentFolders(of: destination, create: false)
            guard let kind = tree.kind(at: source) else { throw DiskError(.notFound, "rename '\(source)': nothing is there") }
            guard source != destination else { return }
            if kind == .folder, destination.isInside(source) {
                throw DiskError(.io, "rename '\(source)' into itself at '\(destination)'")
            }
            switch (kind, tree.kind(at: destination)) {
            case (_, nil), (.file, .file), (.file, .symlink), (.symlink, .file), (.symlink, .symlink): break
            case (.folder, .folder):
                guard tree.children(of: destination).isEmpty else { throw DiskError(.notEmpty, "'\(destination)' is a folder with entries") }
            case (.folder, _): throw DiskError(.io, "rename '\(source)' over '\(destination)' failed: Not a directory")
            case (_, .folder): throw DiskError(.io, "rename '\(source)' over '\(destination)' failed: Is a directory")
            }
            tree.move(.tree(source), to: .tree(destination))
        }
    }

    /// `mkdir -p`: an existing folder is fine.
    public func clientMakeFolder(_ path: RelativePath) throws {
        _ = try clientLocked { try $0.makeFolders(path) }
    }

    public func clientMakeSymlink(_ path: RelativePath, target: String) throws {
        try clientLocked { tree in
            try tree.parentFolders(of: path, create: false)
            guard tree.tree[path] == nil else { throw DiskError(.alreadyExists, "'\(path)' already exists") }
            tree.attach(tree.makeInode(.symlink, bytes: Array(target.utf8), durable: true), at: .tree(path))
        }
    }

    /// `rm -r`: a file, a link, or a folder with everything in it.
    public func clientRemove(_ path: RelativePath) throws {
        try clientLocked { tree in
            try tree.parentFolders(of: path, create: false)
            guard tree.tree[path] != nil else { throw DiskError(.notFound, "remove '\(path)': nothing is there") }
            tree.removeTree(path)
        }
    }

    /// `chmod` of a file (durable at once).
    public func clientSetPermissions(_ path: RelativePath, _ permissions: Permissions) throws {
        try clientLocked { tree in
            let number = try tree.clientFile(path, create: false)
            tree.inodes[number]!.mode = permissions.bits
            tree.inodes[number]!.ctime = tree.time
        }
    }

    /// `setfattr`: sets (or, with nil, removes) one `user.` attribute of the file or folder at
    /// `path`; `.io` where the set would pass the limit, as a full attribute block would.
    public func clientSetAttribute(_ path: RelativePath, _ name: String, _ value: [UInt8]?) throws {
        try clientLocked { tree in
            try tree.parentFolders(of: path, create: false)
            guard let number = tree.tree[path], tree.inodes[number]!.kind != .symlink else {
                throw DiskError(.notFound, "setfattr '\(path)': no file or folder is there")
            }
            var list = tree.inodes[number]!.attributes.attributes.filter { $0.name != name }
            if let value { list.append(.init(name: name, value: value)) }
            do { tree.inodes[number]!.attributes = try ExtendedAttributes(list) } catch {
                throw DiskError(.io, "setfattr '\(path)': \(error)")
            }
            tree.inodes[number]!.ctime = tree.time
        }
    }

    /// `touch -d`: a new mtime for the file at `path`, nothing else.
    public func clientSetMtime(_ path: RelativePath, _ mtime: Int64) throws {
        try clientLocked { tree in
            let number = try tree.clientFile(path, create: false)
            tree.inodes[number]!.mtime = mtime
            tree.inodes[number]!.ctime = tree.time
        }
    }

    /// Power cut: every file goes back to its last synced bytes and mtime (those that change
    /// get a new ctime) and staged files and packages vanish; names, folders, links and
    /// versions stay. Staged files and packages handed out before are finished. Call
    /// `prepare()` afterwards, as a restart would.
    public func crash() {
        locked { $0.crash() }
    }

    /// A client's change under the lock: refused while the disk is away, as writing into a
    /// folder that is not there is.
    func clientLocked<T: Sendable>(_ body: (inout DiskTree) throws -> T) throws -> T {
        try locked { (tree: inout DiskTree) throws -> T in
            if let absence = tree.standIn { throw DiskError(.io, "the disk is not there (\(absence.rawValue))") }
            return try body(&tree)
        }
    }

    // MARK: - Looking

    /// A file's bytes as reads see them; nil where no file is.
    public func contents(of path: RelativePath) -> [UInt8]? {
        locked { tree in tree.kind(at: path) == .file ? tree.inodes[tree.tree[path]!]!.live : nil }
    }

    /// Everything in the container outside `.ubiq/`, `*.nosync` included.
    public func snapshot() -> [RelativePath: Entry] {
        locked { tree in tree.tree.mapValues { tree.entry($0) } }
    }

    /// Names in `.ubiq/tmp/`: staged files and packages neither committed nor discarded.
    public func temporaryFiles() -> [String] {
        locked { $0.temporary.keys.filter(DiskTree.isTopLevel).sorted() }
    }

    /// Every kept version in `.ubiq/versions/` by file name, with its bytes (a link's target);
    /// package versions, which are folders, are in ``storedPackageVersions()``.
    public func storedVersions() -> [String: [UInt8]] {
        locked { tree in
            tree.versions.filter { DiskTree.isTopLevel($0.key) && tree.inodes[$0.value]!.kind != .folder }.mapValues { tree.inodes[$0]!.live }
        }
    }
}

extension DiskTree {
    /// The file a client opens for writing at `path`, created empty if missing and asked.
    mutating func clientFile(_ path: RelativePath, create: Bool = true) throws(DiskError) -> UInt64 {
        try parentFolders(of: path, create: false)
        switch kind(at: path) {
        case .file: return tree[path]!
        case .folder: throw DiskError(.io, "open '\(path)' failed: Is a directory")
        case .symlink: throw DiskError(.io, "'\(path)' is a symbolic link; the simulated client does not follow links")
        case nil:
            guard create else { throw DiskError(.notFound, "open '\(path)' failed: No such file or directory") }
            let number = makeInode(.file, durable: true)
            attach(number, at: .tree(path))
            return number
        }
    }
}
