import UbiqIndex
import UbiqModel

/// File packages: a peer's version is built beside the package in `.ubiq/tmp/` (unchanged
/// files shared, changed ones assembled from their chunks like any file) and swapped in whole,
/// under the write lease on the package that ``apply(_:asked:)`` holds. A crash before the
/// swap leaves the old package (and a staging the next start removes); after it, the next
/// scan finds the new content equal to the need and records it as applied.
extension ContainerSync {
    /// Puts `goal` (a package) in place and records it; `onDisk` is what the index holds here.
    func materializePackage(_ goal: Item, onDisk: IndexedItem?) async throws {
        let path = goal.path
        let content: PackageContent
        do { content = try PackageContent(members: goal.members, chunks: goal.chunks) } catch {
            throw DiskError(.io, "'\(path)' cannot be applied: \(error.reason)")
        }
        // Stamped first: a write after the check below shows at the exchange.
        let stamp = try disk.packageStamp(path)
        let current = try packageInPlace(onDisk, path: path)
        if current == nil, stamp != nil {
            throw DiskError(.alreadyExists, "a folder is at '\(path)' here, where a peer has a package: "
                                + "give every device the same package_extensions, or move the folder away")
        }
        let staged = try disk.stagePackage()
        do {
            try await stage(content, at: path, sharing: current, version: goal.version, into: staged)
            try staged.finishFolders(content.members, package: PackageMember(
                path: path, kind: .directory, mtime: goal.mtime, permissions: goal.permissions, attributes: goal.attributes))
            // What the package replaces where it is not a package (a file, a link): kept as when
            // a file replaces one, then the exchange finds nothing there.
            if let onDisk, current == nil, !onDisk.item.deleted, disk.stat(path) != nil,
               try !removeKeeping(onDisk, reason: .replaced, by: goal.modifiedBy) {
                try disk.remove(path)
            }
            try disk.commitPackage(staged, to: path, expected: stamp)
        } catch {
            staged.discard()
            throw error
        }
        // Read back for the fingerprint the next scan compares; what is not the goal (written
        // since the exchange) is left for that scan to find.
        let placed = try? disk.readPackage(path, previous: content)
        try record([ItemWrite(item: goal, stat: placed?.content == content ? placed?.stat : nil, settlesNeed: true)], origin: .remote)
        logger.debug("applied package", metadata: ["path": "\(path)", "version": "\(goal.version)", "members": "\(content.members.count)"])
        reviveFolders(above: [path])
    }

    /// Removes the package at `onDisk`'s path whole, where it is still as the index saw it.
    func removePackage(_ onDisk: IndexedItem) throws {
        let path = onDisk.item.path
        guard let stamp = try disk.packageStamp(path) else { return }
        _ = try packageInPlace(onDisk, path: path)
        try disk.removePackage(path, expected: stamp)
    }

    /// The content of the package at `path` as the index holds it, checked against the disk
    /// (nil where no package is recorded there).
    private func packageInPlace(_ onDisk: IndexedItem?, path: RelativePath) throws -> PackageContent? {
        guard let onDisk, !onDisk.item.deleted, onDisk.item.kind == .package else { return nil }
        guard let content = try? PackageContent(members: onDisk.item.members, chunks: onDisk.item.chunks),
              let recorded = onDisk.stat, (try? disk.readPackage(path, previous: content))?.stat == recorded else {
            throw DiskError(.io, "'\(path)' changed on disk while applying; it will be rescanned")
        }
        return content
    }

    /// Adds every member of `content` to `staged`: folders and links as they are, files that
    /// `current` holds with the same bytes and metadata shared from the package in place, the
    /// others assembled from local copies of their chunks and from the peers that hold
    /// `version` (asked by the file's own path inside the package).
    private func stage(_ content: PackageContent, at path: RelativePath, sharing current: PackageContent?, version: VersionVector,
                       into staged: any StagedPackage) async throws {
        let changed = Set(content.changedMembers(since: current))
        let holders = (try? index.holders(id, path, version: version)) ?? []
        var files: [AssemblyFacts.File] = []
        for (index, chunks) in content.files where changed.contains(index) {
            files.append(AssemblyFacts.File(path: try path.appending(content.members[index].path.rawValue), chunks: chunks))
        }
        var facts = assemblyFacts(for: files, previous: [:])
        for file in files { facts.holders[file.path] = holders }
        for (index, member) in content.members.enumerated() {
            switch member.kind {
            case .directory:
                try staged.addFolder(member)
            case .symlink:
                try staged.addLink(member)
            case .file where changed.contains(index):
                let inner = try path.appending(member.path.rawValue)
                let file = try await assemble(content.fileChunks(of: index), path: inner, facts: facts)
                try staged.addFile(member, from: file)
            case .file:
                try staged.addFile(member, sharing: try path.appending(member.path.rawValue))
            case .package:
                throw DiskError(.io, "package member '\(member.path)' is marked a package")
            }
        }
    }
}
