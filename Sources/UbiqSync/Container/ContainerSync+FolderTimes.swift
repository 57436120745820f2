import UbiqIndex
import UbiqModel

/// Folder mtimes travel like files' (issue 20), but a folder's mtime moves whenever something
/// inside it is created, removed or renamed. Two rules keep that from echoing between
/// devices: a scan of a changed path also looks at the folder it lies in (the watcher names
/// only the child), and the puller puts back the synced mtime of every folder it changed
/// inside, so its own work never looks like a local change.
extension ContainerSync {
    /// Every folder above any of `paths`, each once.
    static func folders(above paths: [RelativePath]) -> Set<RelativePath> {
        var folders: Set<RelativePath> = []
        for path in paths {
            var parent = path.parent
            while let folder = parent, folders.insert(folder).inserted { parent = folder.parent }
        }
        return folders
    }

    /// Of `folders` (those holding the scanned roots, and those whose own attributes changed),
    /// the ones whose own mtime or permissions changed: their new versions or fingerprints.
    /// Folders the puller is working in are left to it.
    func changedFolders(_ folders: Set<RelativePath>, previous: inout [RelativePath: Item]) throws -> LocalChanges.Plan {
        let ignores = ignoreRules
        let folders = folders.filter { !state.isApplying(inside: $0) && ignores.ignoring($0, isDirectory: true) == nil }
        guard !folders.isEmpty else { return LocalChanges.Plan() }
        var entries: [LocalEntry] = []
        var existing: [RelativePath: IndexedItem] = [:]
        for (path, indexed) in try index.items(id, at: Array(folders))
        where !indexed.item.deleted && indexed.item.kind == .directory {
            guard let entry = disk.folderEntry(path), entry.stat != indexed.stat else { continue }
            entries.append(entry)
            existing[path] = indexed
            previous[path] = indexed.item
        }
        guard !entries.isEmpty else { return LocalChanges.Plan() }
        let outcome = ScanOutcome(changed: entries, seen: Set(entries.map(\.path)))
        return LocalChanges.plan(outcome, existing: existing, needs: try index.needs(id, at: entries.map(\.path)),
                                 device: device, now: clock.wallNanoseconds)
    }

    /// Whether a folder whose own attributes changed needs its subtree scanned: where the
    /// index holds no folder there, where its permissions changed (what it holds may have
    /// become readable, or not), or where a scan had a problem at or under it.
    func subtreeNeeded(_ folder: RelativePath) -> Bool {
        guard let indexed = try? index.item(id, folder), indexed.item.kind == .directory, !indexed.item.deleted,
              let entry = disk.folderEntry(folder) else { return true }
        if let permissions = entry.permissions, permissions != indexed.item.permissions { return true }
        return state.hasScanProblems(under: folder)
    }

    /// Puts back the synced mtime of the folders above `paths`, which the puller changed (or
    /// held, so that no scan recorded a local change there), and records their fingerprints.
    /// A folder that is not the one recorded was made again by the puller for what it put
    /// inside (`mkdir -p`, after a local move or deletion of the old one): it gets all of its
    /// synced metadata back, permissions and attributes too. Called when a pull pass gives
    /// the paths back.
    func restoreFolderTimes(above paths: [RelativePath]) {
        let folders = Self.folders(above: paths)
        guard !folders.isEmpty else { return }
        do {
            var stats: [(RelativePath, FileStat)] = []
            for (path, indexed) in try index.items(id, at: Array(folders))
            where !indexed.item.deleted && indexed.item.kind == .directory {
                guard let seen = disk.stat(path) else { continue }
                let item = indexed.item
                if indexed.stat?.inode != seen.inode {
                    stats.append((path, try disk.makeDirectory(path, permissions: item.permissions, attributes: item.attributes, mtime: item.mtime)))
                } else if seen.mtimeNs != item.mtime {
                    stats.append((path, try disk.setFolderTime(path, mtime: item.mtime)))
                }
            }
            try index.updateStats(id, stats)
        } catch {
            logger.info("could not put back a folder's mtime; the next scan records it as it is",
                        metadata: ["paths": "\(folders.count)", "error": "\(error)"])
        }
    }
}
