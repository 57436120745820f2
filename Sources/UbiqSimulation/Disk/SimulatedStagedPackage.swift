import UbiqModel
import UbiqSync

/// A package's new version being built in the simulated `.ubiq/tmp/` (`PackageStaging`'s
/// contract): a folder tree the engine fills member by member, invisible until committed,
/// gone after a crash or a restart. The disk cannot clone: an unchanged file is shared by a
/// hard link where the engine allows (the package in place and the staged one then hold the
/// same inode), else copied.
final class SimulatedStagedPackage: StagedPackage {
    let disk: SimulatedDisk
    /// Its folder's name in `.ubiq/tmp/`.
    let name: String

    init(disk: SimulatedDisk, name: String) {
        self.disk = disk
        self.name = name
    }

    private func place(_ path: RelativePath) -> DiskTree.Place { .temporary(name + "/" + path.rawValue) }

    /// Checks, as opening each parent does, that the member's folders are staged folders and
    /// that nothing is at its own path yet.
    private func checkFree(_ path: RelativePath, in tree: DiskTree) throws(DiskError) {
        var folder = name
        for component in [""] + path.components.dropLast().map(String.init) {
            if !component.isEmpty { folder += "/" + component }
            guard let number = tree.temporary[folder], tree.inodes[number]!.kind == .folder else {
                throw DiskError(.io, "'\(folder)' is not a staged folder (the staging is finished, or its folder was not added)")
            }
        }
        guard tree[place(path)] == nil else { throw DiskError(.alreadyExists, "'\(path)' is staged already") }
    }

    func addFolder(_ member: PackageMember) throws {
        try disk.locked { tree throws(DiskError) in
            try checkFree(member.path, in: tree)
            let folder = tree.makeInode(.folder, durable: true)
            tree.inodes[folder]!.mode = 0o700
            tree.attach(folder, at: place(member.path))
        }
    }

    func addLink(_ member: PackageMember) throws {
        try disk.locked { tree throws(DiskError) in
            try checkFree(member.path, in: tree)
            tree.attach(tree.makeInode(.symlink, bytes: Array((member.symlinkTarget ?? "").utf8), durable: true, mtime: member.mtime),
                        at: place(member.path))
        }
    }

    func addFile(_ member: PackageMember, from staged: any StagedFile) throws {
        guard let staged = staged as? SimulatedStagedFile, staged.disk === disk else { throw DiskError(.io, "not a staged file of this disk") }
        try disk.locked { tree throws(DiskError) in
            guard let number = tree.temporary[staged.name] else { throw DiskError(.io, "temp file already finished") }
            do throws(DiskError) {
                try checkFree(member.path, in: tree)
                tree.finish(number, FileMetadata(permissions: member.permissions, mtime: member.mtime, attributes: member.attributes))
                tree.sync(number)
                tree.move(.temporary(staged.name), to: place(member.path))
            } catch {
                tree.detach(.temporary(staged.name))
                throw error
            }
        }
    }

    func addFile(_ member: PackageMember, sharing source: RelativePath, linkable: Bool) throws {
        try disk.locked { tree throws(DiskError) in
            try checkFree(member.path, in: tree)
            try tree.parentFolders(of: source, create: false)
            guard let number = tree.tree[source], tree.inodes[number]!.kind == .file else {
                throw DiskError(.notFound, "'\(source)' is no longer a file to share")
            }
            if linkable {
                tree.attach(number, at: place(member.path))
                return
            }
            // A copy with the member's metadata, made durable, as the real staging's.
            let copy = tree.makeInode(.file, bytes: tree.inodes[number]!.live, durable: false)
            tree.finish(copy, FileMetadata(permissions: member.permissions, mtime: member.mtime, attributes: member.attributes))
            tree.sync(copy)
            tree.attach(copy, at: place(member.path))
        }
    }

    func finishFolders(_ members: [PackageMember], package: PackageMember) throws {
        try disk.locked { tree throws(DiskError) in
            let folders = members.filter { $0.kind == .directory }.reversed().map { (place($0.path), $0) } + [(.temporary(name), package)]
            for (place, member) in folders {
                guard let number = tree[place], tree.inodes[number]!.kind == .folder else {
                    throw DiskError(.io, "staged folder '\(member.path)' is missing")
                }
                tree.finish(number, FileMetadata(permissions: member.permissions, mtime: member.mtime, attributes: member.attributes))
            }
        }
    }

    func discard() {
        disk.locked { tree in
            if tree.temporary[name] != nil { tree.removeTree(.temporary(name)) }
        }
    }
}
