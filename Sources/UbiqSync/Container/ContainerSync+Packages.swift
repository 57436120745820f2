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
        let content: PackageContent
        do { content = try goal.packageContent() } catch {
            throw DiskError(.io, "'\(goal.path)' cannot be applied: \(error.reason)")
        }
        let site = try packageSite(goal.path, onDisk: onDisk)
        let stat = try await place(content, folder: PackageMember(of: goal), at: goal.path, over: site, by: goal.modifiedBy, version: goal.version)
        try record([ItemWrite(item: goal, stat: stat, settlesNeed: true)], origin: .remote)
        logger.debug("applied package", metadata: ["path": "\(goal.path)", "version": "\(goal.version)", "members": "\(content.members.count)"])
        reviveFolders(above: [goal.path])
    }

    /// Puts a conflict version in place of the current one where either is a package: a
    /// package version built from its kept copy and swapped in, or a file or link version
    /// put where the package was taken away. Returns the stat to record.
    func resolvePackage(_ current: IndexedItem, keeping version: ConflictVersion, at now: Int64) async throws -> FileStat? {
        let path = current.item.path
        let inPlace = current.item.deleted ? nil : current
        guard version.kind == .package else {
            if let inPlace, inPlace.item.kind == .package { try removePackage(inPlace, keeping: .replaced, by: device) }
            let goal = Item(path: path, kind: version.kind, size: version.size, mtime: now, permissions: version.permissions,
                            attributes: version.attributes, symlinkTarget: version.symlinkTarget, chunks: version.chunks,
                            version: current.item.version, modifiedBy: device)
            if version.kind == .symlink { return try disk.makeSymlink(path, target: version.symlinkTarget ?? "", mtime: now) }
            let staged = try await assemble(version.chunks, path: path)
            do { return try disk.commitNew(staged, to: path, metadata: FileMetadata(of: goal)) } catch {
                staged.discard()
                throw error
            }
        }
        let content: PackageContent
        do { content = try version.packageContent() } catch {
            throw ResolveError(.versionNotFound, "conflict version \(version.id) of '\(path)' cannot be used: \(error.reason)")
        }
        var folder = PackageMember(of: version, at: path)
        folder.mtime = now
        return try await place(content, folder: folder, at: path, over: try packageSite(path, onDisk: inPlace), by: device)
    }

    /// Writes a package version of `path` as a new package at `destination`, where nothing is
    /// (`DiskError.alreadyExists` otherwise).
    func savePackage(_ source: ConflictVersion, of path: RelativePath, to destination: RelativePath) async throws {
        let content: PackageContent
        do { content = try source.packageContent() } catch {
            throw DiskError(.io, "version \(source.id) of '\(path)' cannot be saved: \(error.reason)")
        }
        let staged = try await build(content, folder: PackageMember(of: source, at: destination), at: path, sharing: nil, version: nil)
        do { try disk.commitPackage(staged, to: destination, expected: nil, keepReplacedAs: nil) } catch {
            staged.discard()
            throw error
        }
    }

    /// What is at a package's path before a new version goes there: the index's item
    /// (`onDisk`), the package it holds (checked against the disk), and the stamp that must
    /// not change until the swap.
    struct PackageSite {
        var onDisk: IndexedItem?
        var current: PackageContent?
        var stamp: FileStat?
    }

    /// A folder that is no package here stands where a package is to go.
    struct FolderInTheWay: Error, CustomStringConvertible {
        var path: RelativePath
        var description: String {
            "a folder is at '\(path)' here, where a package is to go: give every device the same package_extensions, or move the folder away"
        }
    }

    /// Looks at what is at `path` (stamped first, so a write after the check shows at the
    /// swap): a `DiskError` where it is changing or changed since it was recorded,
    /// ``FolderInTheWay`` where a folder that is not a package here stands there.
    func packageSite(_ path: RelativePath, onDisk: IndexedItem?) throws -> PackageSite {
        let stamp = try disk.packageStamp(path)
        let current = try packageInPlace(onDisk, path: path)
        if current == nil, stamp != nil { throw FolderInTheWay(path: path) }
        return PackageSite(onDisk: onDisk, current: current, stamp: stamp)
    }

    /// Builds `content` (sharing the unchanged files of the package at `site`; the rest from
    /// local copies, then `holders` and the peers that hold `version`) and swaps it in at
    /// `path`; what it replaces goes to the history as replaced by `by`'s change. `beforeSwap`
    /// may still refuse. Returns the fingerprint to record: nil where something was written
    /// there since the swap, for the next scan to find.
    func place(_ content: PackageContent, folder: PackageMember, at path: RelativePath, over site: PackageSite, by: DeviceID,
               version: VersionVector? = nil, holders: [DeviceID] = [], beforeSwap: () throws -> Void = {}) async throws -> FileStat? {
        let replacing = site.current == nil ? nil : site.onDisk
        // Decided before staging: a tree kept in the history shares no hard-linked file with its successor.
        let keeping = plannedHistory(of: replacing, reason: .replaced, by: by)
        let staged = try await build(content, folder: folder, at: path, sharing: site.current, linkable: keeping == nil,
                                     version: version, holders: holders)
        do {
            try beforeSwap()
            // A staging that linked nothing leaves the package's change times alone: the whole
            // fingerprint must still be the one recorded, so that an attribute or mode set on
            // a file inside meanwhile (which the stamp does not see) is not lost with the tree.
            if keeping != nil, let recorded = replacing?.stat, try disk.packageFingerprint(path) != recorded {
                throw DiskError(.io, "'\(path)' changed on disk while its new version was staged; it will be rescanned")
            }
            // A file or link there is kept as when a file replaces it; the swap then finds nothing.
            if let onDisk = site.onDisk, site.current == nil, !onDisk.item.deleted, disk.stat(path) != nil,
               try !removeKeeping(onDisk, reason: .replaced, by: by) {
                try disk.remove(path)
            }
            try commit(staged, to: path, expected: site.stamp, replacing: replacing, keeping: keeping)
        } catch {
            staged.discard()
            throw error
        }
        let placed = try? disk.readPackage(path, previous: content)
        return placed?.content == content ? placed?.stat : nil
    }

    /// Swaps a staged package in where the package `replacing` (nil: nothing) is, that one
    /// kept in the history as `keeping` where that is set.
    private func commit(_ staged: any StagedPackage, to path: RelativePath, expected stamp: FileStat?, replacing: IndexedItem?,
                        keeping: HistoryEntry?) throws {
        let kept = try keeping.map { try reserveHistory([$0]) } ?? []
        do { try disk.commitPackage(staged, to: path, expected: replacing == nil ? nil : stamp, keepReplacedAs: kept.first?.name) } catch {
            dropHistory(kept)
            throw error
        }
    }

    /// Removes the package at `onDisk`'s path whole, where it is still as the index saw it:
    /// into the history for `reason` (by `by`'s change), or freed where `reason` is nil.
    func removePackage(_ onDisk: IndexedItem, keeping reason: HistoryEntry.Reason?, by: DeviceID) throws {
        let path = onDisk.item.path
        guard let stamp = try disk.packageStamp(path) else { return }
        _ = try packageInPlace(onDisk, path: path)
        let kept = try reason.flatMap { plannedHistory(of: onDisk, reason: $0, by: by) }.map { try reserveHistory([$0]) } ?? []
        do { try disk.removePackage(path, expected: stamp, keepAs: kept.first?.name) } catch {
            dropHistory(kept)
            throw error
        }
    }

    /// The content of the package at `path` as the index holds it, checked against the disk
    /// by its fingerprint (nil where no package is recorded there).
    func packageInPlace(_ onDisk: IndexedItem?, path: RelativePath) throws -> PackageContent? {
        guard let onDisk, !onDisk.item.deleted, onDisk.item.kind == .package, onDisk.downloaded else { return nil }
        guard let content = try? onDisk.item.packageContent(), let recorded = onDisk.stat,
              (try? disk.packageFingerprint(path)) == recorded else {
            throw DiskError(.io, "'\(path)' changed on disk while applying; it will be rescanned")
        }
        return content
    }

    /// A staged package holding `content`, its own folder described by `folder`; see
    /// ``stage(_:at:sharing:linkable:version:holders:into:)``.
    func build(_ content: PackageContent, folder: PackageMember, at path: RelativePath, sharing current: PackageContent?,
               linkable: Bool = false, version: VersionVector?, holders: [DeviceID] = []) async throws -> any StagedPackage {
        let staged = try disk.stagePackage()
        do {
            try await stage(content, at: path, sharing: current, linkable: linkable, version: version, holders: holders, into: staged)
            try staged.finishFolders(content.members, package: folder)
            return staged
        } catch {
            staged.discard()
            throw error
        }
    }

    /// Keeps a package's conflict version whole in `.ubiq/versions/`, every file assembled
    /// (copied, never linked, as a file's version is: the package in place may be edited in
    /// place), and lists its files' chunks there for peers that lack it.
    func keepPackageVersion(_ version: ConflictVersion, of path: RelativePath) async throws {
        let content: PackageContent
        do { content = try version.packageContent() } catch {
            throw DiskError(.io, "conflict version \(version.id) of '\(path)' cannot be kept: \(error.reason)")
        }
        let staged = try await build(content, folder: PackageMember(of: version, at: path), at: path, sharing: nil, version: nil)
        do { try disk.commitPackageVersion(staged, of: path, id: version.id) } catch {
            staged.discard()
            throw error
        }
        try index.setVersionPackage(id, name: try disk.versionName(of: path, id: version.id), content: content)
    }

    /// Puts the package kept in the history as `entry` back at `path` (see
    /// ``restore(_:historyID:from:)``): built from its kept tree (and `holders` for anything
    /// not here), swapped in where the package now is (which goes to the history), and
    /// recorded as a change here.
    func restorePackage(_ path: RelativePath, entry: HistoryEntry, before: IndexedItem?, holders: [DeviceID]) async throws
        -> (item: Item, restored: HistoryEntry)
    {
        let onDisk = before.flatMap { $0.item.deleted ? nil : $0 }
        guard entry.item.kind == .package else {
            throw RestoreError(.folderInTheWay, "a package is at '\(path)' now; move it away and restore again")
        }
        if let onDisk, onDisk.item.kind == .directory {
            throw RestoreError(.folderInTheWay, "a folder is at '\(path)' now; move it away and restore again")
        }
        let content: PackageContent
        do { content = try entry.item.packageContent() } catch {
            throw RestoreError(.versionNotFound, "kept version \(entry.id) of '\(path)' cannot be restored: \(error.reason)")
        }
        let scanRoot = try scanRoot(creating: path)
        let site: PackageSite
        do { site = try packageSite(path, onDisk: onDisk) } catch is FolderInTheWay {
            throw RestoreError(.folderInTheWay, "a folder is at '\(path)' now; move it away and restore again")
        } catch {
            throw RestoreError(.busy, "'\(path)' changed on disk; try again after it is scanned")
        }
        _ = try await place(content, folder: PackageMember(of: entry.item), at: path, over: site, by: device, holders: holders) {
            guard try index.item(id, path) == before else {
                throw RestoreError(.busy, "'\(path)' changed while its kept version was put together; try again")
            }
        }
        await localChanges([scanRoot])
        guard let restored = try index.item(id, path)?.item, !restored.deleted, restored.kind == .package,
              restored.chunks.map(\.hash) == entry.item.chunks.map(\.hash) else {
            throw RestoreError(.busy, "'\(path)' was restored but changed before it was recorded; the next scan records it")
        }
        logger.info("restored a kept package", metadata: ["path": "\(path)", "kept": "\(entry.id)", "version": "\(restored.version)"])
        return (restored, entry)
    }

    /// Adds every member of `content` to `staged`: folders and links as they are, files that
    /// `current` holds with the same bytes and metadata shared from the package in place
    /// (hard linked only where `linkable`), the others assembled from local copies of their
    /// chunks and from the peers that hold `version` (asked by the file's own path inside the
    /// package).
    private func stage(_ content: PackageContent, at path: RelativePath, sharing current: PackageContent?, linkable: Bool,
                       version: VersionVector?, holders known: [DeviceID], into staged: any StagedPackage) async throws {
        let changed = Set(content.changedMembers(since: current))
        let holders = known + (version.flatMap { try? index.holders(id, path, version: $0) } ?? [])
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
                try staged.addFile(member, sharing: try path.appending(member.path.rawValue), linkable: linkable)
            case .package:
                throw DiskError(.io, "package member '\(member.path)' is marked a package")
            }
        }
    }
}

extension PackageMember {
    /// The package folder itself as a member, for its metadata: `item`'s.
    init(of item: Item) {
        self.init(path: item.path, kind: .directory, mtime: item.mtime, permissions: item.permissions, attributes: item.attributes)
    }

    /// The folder of a package's conflict version at `path`.
    init(of version: ConflictVersion, at path: RelativePath) {
        self.init(path: path, kind: .directory, mtime: version.mtime, permissions: version.permissions, attributes: version.attributes)
    }
}
