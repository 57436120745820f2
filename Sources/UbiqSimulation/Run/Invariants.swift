import UbiqChunking
import UbiqIndex
import UbiqModel
import UbiqTestSupport

/// What must hold once the simulated world has settled (issue 18; DESIGN.md §8): every
/// device the same tree and the same conflict versions, nothing lost and nothing made up
/// (``WriteLog``, which sees a file package as one document; ``ClientLog`` adds no deletion
/// undone), no temporary files, and each index agreeing with its disk, its history too.
enum Invariants {
    /// One device's settled state in the form the write log judges.
    static func settled(_ device: SimDevice) -> SettledState {
        var tree: [String: String] = [:]
        let snapshot = device.disk.snapshot(), packages = device.disk.packages
        let packageTrees = SimulatedDisk.packageTrees(in: snapshot, packages: packages)
        for (path, entry) in snapshot where path.rawValue != "Documents" && packages.package(containing: path) == nil {
            if let inside = packageTrees[path] {
                tree[path.rawValue] = Documents.digest(of: inside)
                continue
            }
            switch entry {
            case .folder: tree[path.rawValue] = "dir"
            case .symlink(let target, _): tree[path.rawValue] = "link:\(target)"
            case .file(let bytes, let permissions, _, let attributes):
                // As TreeDigest writes it, for the simulated disk's 0644 new files.
                tree[path.rawValue] = ChunkHasher.hash(bytes).hex + TreeDigest.modeSuffix(.init(permissions.bits), folder: false, umask: 0o022)
                    + TreeDigest.attributeSuffix(attributes)
            }
        }
        var conflicts: [String: Set<String>] = [:]
        let stored = device.disk.storedVersions(), storedPackages = device.disk.storedPackageVersions()
        for (path, ids) in listedConflicts(device) {
            for id in ids {
                let content = (try? device.disk.versionName(of: path, id: id)).flatMap { storedContent($0, files: stored, packages: storedPackages) }
                conflicts[path.rawValue, default: []].insert(content ?? "missing file of \(id)")
            }
        }
        return SettledState(tree: tree, conflicts: conflicts)
    }

    /// The conflict versions each item lists, by path: what a user sees and resolves.
    static func listedConflicts(_ device: SimDevice) -> [RelativePath: Set<String>] {
        let items = (try? device.index.conflictedItems(device.container)) ?? []
        return Dictionary(items.map { ($0.path, Set($0.conflicts.map(\.id))) }, uniquingKeysWith: { $0.union($1) })
    }

    /// A path's listed conflict versions on a device, as `id=content` (for reports).
    static func describe(_ device: SimDevice, _ path: String) -> String {
        guard let relative = try? RelativePath(path), let item = try? device.index.item(device.container, relative) else { return "[]" }
        let stored = device.disk.storedVersions(), storedPackages = device.disk.storedPackageVersions()
        let need = (try? device.index.need(device.container, relative)).map { " need \($0.version)\($0.deleted ? " deleted" : "")" } ?? ""
        let current = "d\(device.number) (\(device.id.rawValue.prefix(4))) current \(item.item.modifiedBy.rawValue.prefix(4)):\(item.item.version)\(need)"
        return current + " " + item.item.conflicts.map { version in
            let name = try? device.disk.versionName(of: relative, id: version.id)
            if version.kind == .package {
                let content = name.flatMap { storedContent($0, files: stored, packages: storedPackages) }
                return "\(version.id)=package \(content?.prefix(8) ?? "missing")"
            }
            let bytes = name.flatMap { stored[$0] }
            let right = bytes.map { FileChunker().chunks(of: $0).map(\.hash) == version.chunks.map(\.hash) } ?? false
            return "\(version.id)=\(bytes.map { ChunkHasher.hash($0).hex.prefix(8) } ?? "missing")\(right ? "" : " (not its chunks)")"
        }.sorted().description
    }

    /// What a device's index and disk hold at `path`, for a report of a need nobody serves.
    static func held(_ device: SimDevice, _ path: RelativePath) -> String {
        let indexed = (try? device.index.item(device.container, path)).map {
            "\($0.item.deleted ? "deleted " : "")\($0.item.modifiedBy.rawValue.prefix(4)):\($0.item.version) \($0.item.chunks.map { $0.hash.hex.prefix(6) })"
        } ?? "none"
        let need = (try? device.index.need(device.container, path)).map { " need \($0.version) \($0.chunks.map { $0.hash.hex.prefix(6) })" } ?? ""
        let disk = device.disk.contents(of: path).map { FileChunker().chunks(of: $0).map { $0.hash.hex.prefix(6) }.description } ?? "nothing"
        return "d\(device.number) index \(indexed)\(need), disk \(disk)"
    }

    /// Paths a device reports as case conflicts (DESIGN.md §3: two names that differ only in
    /// case are reported, never written), with their twins: they wait for a person, so the
    /// devices may differ there.
    static func caseConflicts(_ world: SimWorld) -> Set<RelativePath> {
        var paths: Set<RelativePath> = []
        for device in world.devices {
            guard let status = try? device.life?.sync.status(), !status.caseConflicts.isEmpty else { continue }
            let folded = Set(status.caseConflicts.map { $0.lowercased() })
            paths.formUnion(status.caseConflicts.compactMap { try? RelativePath($0) })
            paths.formUnion(device.disk.snapshot().keys.filter { folded.contains($0.rawValue.lowercased()) })
        }
        return paths
    }

    /// A device's conflict versions (content hashes by path) without the excused paths.
    static func conflicts(_ device: SimDevice, excluding excused: Set<RelativePath>) -> [String: Set<String>] {
        settled(device).conflicts.filter { path, _ in !excused.contains { $0.rawValue == path || path.hasPrefix($0.rawValue + "/") } }
    }

    /// A device's tree without the excused paths (and what lies inside them), and without
    /// `Documents` itself, which is no item: its mtime is each device's own.
    static func tree(_ device: SimDevice, excluding excused: Set<RelativePath>) -> [RelativePath: SimulatedDisk.Entry] {
        device.disk.snapshot().filter { path, _ in
            path.rawValue != "Documents" && !excused.contains { path == $0 || path.isInside($0) }
        }
    }

    /// Whether every device holds the same tree and conflict versions, and none is busy.
    static func converged(_ world: SimWorld) -> Bool { unsettled(world) == nil }

    /// Why the world has not settled yet; nil once it has.
    static func unsettled(_ world: SimWorld) -> String? {
        if let down = world.devices.first(where: { !$0.isUp }) { return "device \(down.number) is down" }
        let excused = caseConflicts(world)
        let first = world.devices[0]
        let tree = tree(first, excluding: excused), versions = conflicts(first, excluding: excused)
        for device in world.devices.dropFirst() {
            if self.tree(device, excluding: excused) != tree { return "device \(device.number)'s tree differs from device 0's" }
            let theirs = conflicts(device, excluding: excused)
            if theirs != versions {
                let paths = Set(theirs.keys).union(versions.keys).filter { theirs[$0] != versions[$0] }.sorted()
                return "device \(device.number) lists other conflict versions than device 0 at \(paths.prefix(4)): "
                    + paths.prefix(2).map { describe(first, $0) + " vs " + describe(device, $0) }.joined(separator: "; ")
            }
        }
        for device in world.devices {
            guard let life = device.life, let status = try? life.sync.status() else { return "device \(device.number) has no status" }
            if let held = life.sync.heldDeletions { return "device \(device.number) holds \(held.count) deletions for a person" }
            if !life.sync.transfers.all.isEmpty { return "device \(device.number) is transferring \(life.sync.transfers.all.map(\.path))" }
            if status.statistics.needItems > 0 {
                let needs = ((try? device.index.needs(world.container)) ?? []).map(\.path).filter { path in
                    !excused.contains { path == $0 || path.isInside($0) }
                }
                if let path = needs.first {
                    return "device \(device.number) still needs \(needs.prefix(6).map(\.rawValue)) (case conflicts \(status.caseConflicts)); "
                        + world.devices.map { held($0, path) }.joined(separator: "; ")
                }
            }
        }
        return nil
    }

    /// Every way the settled world breaks an invariant, one line each; empty when all hold.
    static func violations(_ world: SimWorld, log: WriteLog) -> [String] {
        var problems: [String] = []
        let excused = caseConflicts(world)
        let states = world.devices.map { settled($0) }
        let trees = world.devices.map { tree($0, excluding: excused) }
        for number in world.devices.indices.dropFirst() {
            let paths = Set(trees[number].keys).union(trees[0].keys).filter { trees[number][$0] != trees[0][$0] }
            if let first = paths.min() {
                let indexed = world.devices.map { device in
                    (try? device.index.item(device.container, first)).map {
                        "d\(device.number) index \($0.item.mtime) \($0.item.version)\($0.item.deleted ? " deleted" : "") \($0.item.attributes.names)"
                    } ?? "d\(device.number) no item"
                }
                problems.append("device \(number) differs from device 0 at \(paths.sorted().prefix(8).map(\.rawValue)); "
                    + "\(first): \(trees[0][first].map { "\($0)" } ?? "nothing") vs \(trees[number][first].map { "\($0)" } ?? "nothing"); "
                    + indexed.joined(separator: ", "))
            }
            if conflicts(world.devices[number], excluding: excused) != conflicts(world.devices[0], excluding: excused) {
                problems.append("device \(number) keeps other conflict versions than device 0")
            }
        }
        // A version missing under a name some device reports as a case conflict counts only
        // when no device holds it.
        let perDevice = states.map { Set(log.violations(in: $0)) }
        let everywhere = perDevice.dropFirst().reduce(perDevice[0]) { $0.intersection($1) }
        for line in log.violations(in: states[0]) {
            let atExcused = excused.contains { line.contains(" \($0.rawValue) ") }
            if !atExcused || everywhere.contains(line) { problems.append("device 0: \(line)") }
        }
        for device in world.devices {
            let leftovers = device.disk.temporaryFiles()
            if !leftovers.isEmpty { problems.append("device \(device.number): temporary files left: \(leftovers)") }
            problems += indexAgrees(device, container: world.container)
            problems += historyAgrees(device, container: world.container)
            problems += packageVersionsKeptWhole(device)
        }
        return problems
    }

    /// Every version the history lists is kept, with the bytes it lists, and nothing else is
    /// in the history folder: a kept version never changes after it left its path.
    static func historyAgrees(_ device: SimDevice, container: ContainerID) -> [String] {
        let entries: [HistoryEntry]
        do { entries = try device.index.history(container) } catch { return ["device \(device.number): history unreadable: \(error)"] }
        let kept = device.disk.keptVersions()
        var problems: [String] = []
        for entry in entries {
            if entry.item.kind == .package {
                if let problem = keptPackageAgrees(device, entry) { problems.append(problem) }
                continue
            }
            guard let bytes = kept[entry.name] else {
                problems.append("device \(device.number): the history lists \(entry.path) (\(entry.name)), whose file is gone")
                continue
            }
            if FileChunker().chunks(of: bytes).map(\.hash) != entry.item.chunks.map(\.hash) {
                problems.append("device \(device.number): the kept version \(entry.name) of \(entry.path) is not the version listed")
            }
        }
        let listed = Set(entries.map(\.name))
        for name in kept.keys.sorted() where !listed.contains(name) {
            problems.append("device \(device.number): \(name) is in the history folder but not listed")
        }
        return problems
    }

    /// The index lists exactly what is on disk, with the same content.
    static func indexAgrees(_ device: SimDevice, container: ContainerID) -> [String] {
        let items: [IndexedItem]
        do { items = try device.index.items(container) } catch { return ["device \(device.number): index unreadable: \(error)"] }
        let live = Dictionary(items.filter { !$0.item.deleted }.map { ($0.item.path, $0.item) }, uniquingKeysWith: { a, _ in a })
        let disk = device.disk.snapshot(), packages = device.disk.packages
        var problems = itemsInsidePackages(device, live: Array(live.keys))
        // A package's inside is its item's members, no items of their own.
        for (path, entry) in disk.sorted(by: { $0.key < $1.key }) where packages.package(containing: path) == nil {
            guard let item = live[path] else {
                if path.rawValue != "Documents" { problems.append("device \(device.number): \(path) is on disk but not in the index") }
                continue
            }
            switch entry {
            case .folder where packages.isPackageName(path.name):
                if let problem = packageAgrees(device, path, entry, item: item) { problems.append(problem) }
            case .file(let bytes, let permissions, let mtime, let attributes):
                if item.kind != .file || item.size != UInt64(bytes.count) || item.permissions != permissions || item.mtime != mtime
                    || item.attributes != attributes
                    || item.chunks.map(\.hash) != FileChunker().chunks(of: bytes).map(\.hash) {
                    problems.append("device \(device.number): the index's \(path) is not the file on disk")
                }
            case .folder where item.kind != .directory:
                problems.append("device \(device.number): \(path) is a folder on disk, \(item.kind) in the index")
            case .folder(_, let attributes) where item.attributes != attributes:
                problems.append("device \(device.number): the index's attributes of folder \(path) are not those on disk")
            default: break
            }
        }
        for path in live.keys.sorted() where disk[path] == nil {
            problems.append("device \(device.number): the index lists \(path), which is not on disk")
        }
        return problems
    }
}
