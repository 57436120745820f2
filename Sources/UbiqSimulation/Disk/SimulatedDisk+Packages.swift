import UbiqModel
import UbiqSync

/// File packages on the simulated disk, with the real disk's contract
/// (`FileSystemDisk+Packages`): a package is read whole, a new version is staged as a tree
/// in `.ubiq/tmp/` and put in place with one exchange, checked against the stamp the engine
/// took; a package's conflict version is a tree in `.ubiq/versions/`, a package replaced or
/// deleted is kept as a tree in `.ubiq/history/` where asked.
extension SimulatedDisk {
    public func stagePackage() throws -> any StagedPackage {
        let name = try locked { tree in
            try tree.injectedFailure("create a staging folder")
            let name = tree.temporaryName("k")
            let folder = tree.makeInode(.folder, durable: true)
            tree.inodes[folder]!.mode = 0o700
            tree.attach(folder, at: .temporary(name))
            return name
        }
        return SimulatedStagedPackage(disk: self, name: name)
    }

    public func packageStamp(_ path: RelativePath) throws -> FileStat? {
        locked { $0.packageStamp(at: path) }
    }

    public func packageFingerprint(_ path: RelativePath) throws -> FileStat? {
        locked { $0.packageFingerprint(at: path) }
    }

    public func readPackage(_ path: RelativePath, previous: PackageContent?) throws -> PackageOnDisk {
        // Taken under the lock, chunked outside it.
        try locked { tree throws(DiskError) in try tree.package(at: path) }.read(previous: previous, chunker: chunker).package
    }

    public func commitPackage(_ staged: any StagedPackage, to path: RelativePath, expected: FileStat?, keepReplacedAs: String?) throws {
        let name = try staging(staged)
        try locked { tree throws(DiskError) in
            do throws(DiskError) {
                guard tree.temporary[name] != nil else { throw DiskError(.io, "not a staged package of this disk, or already committed") }
                try tree.injectedFailure("exchange the package at '\(path)'")
                try tree.check(path, stamp: expected)
                try tree.parentFolders(of: path, create: true)
                // `syncfs` before the exchange: a crash after it finds every file of both trees.
                tree.syncTree(.temporary(name))
                tree.syncTree(.tree(path))
                let previous = tree.temporaryName("k")
                tree.move(.tree(path), to: .temporary(previous))
                tree.move(.temporary(name), to: .tree(path))
                // The engine shares no file by hard link with a tree it keeps.
                if let keepReplacedAs, tree.temporary[previous] != nil {
                    tree.move(.temporary(previous), to: .history(keepReplacedAs))
                } else {
                    tree.removeTree(.temporary(previous))
                }
            } catch {
                tree.removeTree(.temporary(name))
                throw error
            }
        }
    }

    public func commitPackageVersion(_ staged: any StagedPackage, of path: RelativePath, id: String) throws {
        let name = try staging(staged)
        try locked { tree throws(DiskError) in
            do throws(DiskError) {
                guard tree.temporary[name] != nil else { throw DiskError(.io, "not a staged package of this disk, or already committed") }
                let version = try VersionNames.name(of: path, id: id)
                tree.syncTree(.temporary(name))
                tree.removeTree(.version(version))
                tree.move(.temporary(name), to: .version(version))
            } catch {
                tree.removeTree(.temporary(name))
                throw error
            }
        }
    }

    public func removePackage(_ path: RelativePath, expected: FileStat, keepAs name: String?) throws {
        try locked { tree throws(DiskError) in
            try tree.check(path, stamp: expected)
            try tree.parentFolders(of: path, create: false)
            if let name {
                // `syncfs`, then one rename: the history keeps what the index lists.
                tree.syncTree(.tree(path))
                tree.move(.tree(path), to: .history(name))
            } else {
                tree.removeTree(.tree(path))
            }
        }
    }

    /// Every package in the container by its path, with what is inside it by inner path.
    public func packageTrees() -> [RelativePath: [RelativePath: Entry]] {
        Self.packageTrees(in: snapshot(), packages: packages)
    }

    /// The packages of a ``snapshot()`` under `packages`' rules, each with what is inside it
    /// by inner path.
    public static func packageTrees(in snapshot: [RelativePath: Entry], packages: PackageRules) -> [RelativePath: [RelativePath: Entry]] {
        var trees: [RelativePath: [RelativePath: Entry]] = [:]
        for (path, entry) in snapshot where entry.isFolder && packages.isPackageName(path.name) && packages.package(containing: path) == nil {
            trees[path] = [:]
        }
        for (path, entry) in snapshot {
            guard let package = packages.package(containing: path) else { continue }
            trees[package, default: [:]][Self.inner(path, of: package)] = entry
        }
        return trees
    }

    /// Every package version in `.ubiq/versions/` by its name, with what is inside it.
    public func storedPackageVersions() -> [String: [RelativePath: Entry]] {
        locked { tree in
            var versions: [String: [RelativePath: Entry]] = [:]
            for (name, number) in tree.versions where DiskTree.isTopLevel(name) && tree.inodes[number]!.kind == .folder {
                versions[name] = [:]
                for link in tree.descendants(of: .version(name)) {
                    let key = DiskTree.key(of: link)
                    // Valid: the components below a version's name are.
                    let inner = try! RelativePath(String(decoding: key.utf8.dropFirst(name.utf8.count + 1), as: UTF8.self))
                    versions[name]![inner] = tree.entry(tree[link]!)
                }
            }
            return versions
        }
    }

    /// The package version stored as `name` (in `.ubiq/history/` where `inHistory`, else in
    /// `.ubiq/versions/`) as the engine would read it: its content and its folder's metadata;
    /// nil where no such tree is.
    public func readStoredPackage(_ name: String, inHistory: Bool = false) -> (content: PackageContent, folder: PackageMember)? {
        let snapshot = locked { tree in
            DiskTree.isTopLevel(name) ? tree.packageSnapshot(at: inHistory ? .history(name) : .version(name)) : nil
        }
        guard let snapshot, let content = try? snapshot.read(previous: nil, chunker: chunker).package.content else { return nil }
        let folder = PackageMember(path: try! RelativePath(name), kind: .directory, mtime: snapshot.root.stat.mtimeNs,
                                   permissions: Permissions(mode: snapshot.root.mode, kind: .directory), attributes: snapshot.root.attributes)
        return (content, folder)
    }

    static func inner(_ path: RelativePath, of package: RelativePath) -> RelativePath {
        // Valid: the components below a valid path are.
        try! RelativePath(String(decoding: path.rawValue.utf8.dropFirst(package.rawValue.utf8.count + 1), as: UTF8.self))
    }

    /// The staging's name in `.ubiq/tmp/`, where `staged` is one of this disk's.
    private func staging(_ staged: any StagedPackage) throws(DiskError) -> String {
        guard let staged = staged as? SimulatedStagedPackage, staged.disk === self else {
            throw DiskError(.io, "not a staged package of this disk, or already committed")
        }
        return staged.name
    }
}

extension DiskTree {
    /// The real disk's check before a package is put in place or removed: what is at `path`
    /// still has the stamp `expected` (nil: nothing may be there).
    mutating func check(_ path: RelativePath, stamp expected: FileStat?) throws(DiskError) {
        guard packageStamp(at: path) == expected, expected != nil || tree[path] == nil else {
            throw DiskError(.alreadyExists, "'\(path)' changed on disk while its new version was staged; it will be rescanned")
        }
    }

    /// What is at one inode, as ``SimulatedDisk/snapshot()`` describes it.
    func entry(_ number: UInt64) -> SimulatedDisk.Entry {
        let inode = inodes[number]!
        switch inode.kind {
        case .folder: return .folder(mtime: inode.mtime, attributes: inode.attributes)
        case .file:
            return .file(inode.live, permissions: Permissions(mode: inode.mode, kind: .file), mtime: inode.mtime, attributes: inode.attributes)
        case .symlink: return .symlink(String(decoding: inode.live, as: UTF8.self), mtime: inode.mtime)
        }
    }
}
