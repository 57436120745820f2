import UbiqChunking
import UbiqFileSystem
import UbiqModel
import UbiqSync

/// A package folder of the simulated disk as it stood at one moment (taken under the disk's
/// lock), and what the real `PackageReader` makes of such a folder: its content, its
/// fingerprint (changes with anything inside) and its stamp (the fingerprint without change
/// times, which a hard link to one of its files leaves alone).
struct PackageSnapshot: Sendable {
    /// One entry: the package folder itself (an empty path), or one below it.
    struct Node: Sendable {
        var path: RelativePath?
        var kind: DiskTree.Kind
        var stat: FileStat
        var bytes: [UInt8]
        var mode: UInt32
        var attributes: ExtendedAttributes
    }

    var root: Node
    /// What is below the folder, in path order.
    var inside: [Node]

    /// The content and fingerprint, chunking only the files `previous` does not list with the
    /// same size and mtime (the real reader's shortcut); links leading out are left out.
    func read(previous: PackageContent?, chunker: FileChunker) throws(DiskError) -> (package: PackageOnDisk, filesHashed: Int) {
        var known: [RelativePath: (member: PackageMember, chunks: [ChunkRef])] = [:]
        if let previous {
            for (index, member) in previous.members.enumerated() where member.kind == .file {
                known[member.path] = (member, previous.fileChunks(of: index))
            }
        }
        var files: [(member: PackageMember, chunks: [ChunkRef])] = []
        var hashed = 0
        for node in inside {
            guard let path = node.path else { continue }
            switch node.kind {
            case .folder:
                files.append((PackageMember(path: path, kind: .directory, mtime: node.stat.mtimeNs,
                                            permissions: Permissions(mode: node.mode, kind: .directory), attributes: node.attributes), []))
            case .symlink:
                let target = String(decoding: node.bytes, as: UTF8.self)
                guard !target.isEmpty, SymlinkTarget.staysInside(linkPath: path.rawValue, target: target) else { continue }
                files.append((PackageMember(path: path, kind: .symlink, mtime: node.stat.mtimeNs, symlinkTarget: target), []))
            case .file:
                let member = PackageMember(path: path, kind: .file, size: UInt64(node.bytes.count), mtime: node.stat.mtimeNs,
                                           permissions: Permissions(mode: node.mode, kind: .file), attributes: node.attributes)
                if let old = known[path], old.member.size == member.size, old.member.mtime == member.mtime {
                    files.append((member, old.chunks))
                } else {
                    hashed += 1
                    files.append((member, chunker.chunks(of: node.bytes)))
                }
            }
        }
        let content: PackageContent
        do { content = try PackageContent(files: files) } catch {
            throw DiskError(.io, "the package cannot be described: \(error.reason)")
        }
        return (PackageOnDisk(content: content, stat: statFingerprint), hashed)
    }

    /// What changes with any write inside but not with a new hard link to a file in it.
    var stamp: FileStat { fingerprint(withChangeTimes: false) }

    /// The fingerprint a reading records, from stat facts alone (the real
    /// `PackageReader.fingerprint`).
    var statFingerprint: FileStat { fingerprint(withChangeTimes: true) }

    private func fingerprint(withChangeTimes: Bool) -> FileStat {
        fingerprint(size: inside.filter { $0.kind == .file }.reduce(0) { $0 + $1.stat.size }, withChangeTimes: withChangeTimes)
    }

    /// The bytes of its files, the latest mtime and ctime of anything in it, and in place of
    /// an inode a digest of every entry's path and stat, the folder's own first.
    private func fingerprint(size: UInt64, withChangeTimes: Bool) -> FileStat {
        var digest = TreeDigest64()
        var latestMtime = Int64.min, latestCtime = Int64.min
        for node in [root] + inside {
            var stat = node.stat
            if !withChangeTimes { stat.ctimeNs = 0 }
            latestMtime = max(latestMtime, stat.mtimeNs)
            latestCtime = max(latestCtime, stat.ctimeNs)
            if let path = node.path { digest.add(path.rawValue) }
            digest.add(stat)
        }
        return FileStat(size: size, mtimeNs: latestMtime, ctimeNs: latestCtime, inode: digest.value)
    }
}

extension DiskTree {
    /// The folder at `place` and everything below it as a package; nil where no folder is.
    func packageSnapshot(at place: Place) -> PackageSnapshot? {
        guard let number = self[place], inodes[number]!.kind == .folder else { return nil }
        let prefix = Self.key(of: place).utf8.count + 1
        let inside = descendants(of: place).map { link in
            // Valid: the components below a valid path or a version's name are.
            node(self[link]!, path: try! RelativePath(String(decoding: Self.key(of: link).utf8.dropFirst(prefix), as: UTF8.self)))
        }
        return PackageSnapshot(root: node(number, path: nil), inside: inside)
    }

    private func node(_ number: UInt64, path: RelativePath?) -> PackageSnapshot.Node {
        let inode = inodes[number]!
        return PackageSnapshot.Node(path: path, kind: inode.kind, stat: stat(of: number), bytes: inode.live, mode: inode.mode,
                                    attributes: inode.attributes)
    }

    /// The package folder at `path` in the container, its parents opened as the real disk
    /// opens them (`.notFound` where no folder is there).
    mutating func package(at path: RelativePath) throws(DiskError) -> PackageSnapshot {
        try parentFolders(of: path, create: false)
        guard let snapshot = packageSnapshot(at: .tree(path)) else { throw DiskError(.notFound, "no folder is at '\(path)'") }
        return snapshot
    }

    /// The stamp of the package folder at `path`; nil where no folder is there.
    mutating func packageStamp(at path: RelativePath) -> FileStat? {
        (try? package(at: path))?.stamp
    }

    /// The fingerprint of the package folder at `path`; nil where no folder is there.
    mutating func packageFingerprint(at path: RelativePath) -> FileStat? {
        (try? package(at: path))?.statFingerprint
    }
}
