import UbiqChunking
import UbiqIndex
import UbiqModel

/// What must hold of file packages once the world has settled, besides what holds of every
/// document: each is one item whose members and chunks are what is on disk (nothing inside
/// one is an item of its own), and each of a package's conflict versions is kept whole.
extension Invariants {
    /// The content of the version stored as `name` on a device: a file's hash, or a package
    /// version's digest (``Documents``); nil where nothing is stored under that name.
    static func storedContent(_ name: String, files: [String: [UInt8]], packages: [String: [RelativePath: SimulatedDisk.Entry]]) -> String? {
        if let bytes = files[name] { return ChunkHasher.hash(bytes).hex }
        return packages[name].map(Documents.digest(of:))
    }

    /// The package at `path` (the folder `entry` on disk) and its item agree: the same kind,
    /// members, chunks, size, mtime and attributes. Nil when they do.
    static func packageAgrees(_ device: SimDevice, _ path: RelativePath, _ entry: SimulatedDisk.Entry, item: Item) -> String? {
        guard item.kind == .package else { return "device \(device.number): \(path) is a package on disk, \(item.kind) in the index" }
        guard let reading = try? device.disk.readPackage(path, previous: nil) else {
            return "device \(device.number): the package \(path) cannot be read"
        }
        let disk = reading.content
        let differ = Set(disk.members.map(\.path)).symmetricDifference(item.members.map(\.path))
            .union(zip(disk.members, item.members).filter { $0 != $1 }.map(\.0.path)).sorted()
        if !differ.isEmpty || disk.chunks.map(\.hash) != item.chunks.map(\.hash) || disk.size != item.size {
            return "device \(device.number): the index's package \(path) is not the one on disk (members differ at \(differ.prefix(6).map(\.rawValue)))"
        }
        if case .folder(let mtime, let attributes) = entry, mtime != item.mtime || attributes != item.attributes {
            return "device \(device.number): the index's package \(path) has another mtime or other attributes than its folder on disk"
        }
        return nil
    }

    /// Every package version a device lists as a conflict is stored whole: a tree in
    /// `.ubiq/versions/` that reads as exactly the version's members and chunks.
    static func packageVersionsKeptWhole(_ device: SimDevice) -> [String] {
        let items = (try? device.index.conflictedItems(device.container)) ?? []
        var problems: [String] = []
        for item in items {
            for version in item.conflicts where version.kind == .package {
                guard let name = try? device.disk.versionName(of: item.path, id: version.id) else { continue }
                guard let stored = device.disk.readStoredPackage(name) else {
                    problems.append("device \(device.number): the package version \(version.id) of \(item.path) is listed but not kept")
                    continue
                }
                if stored.content.members != version.members || stored.content.chunks.map(\.hash) != version.chunks.map(\.hash) {
                    problems.append("device \(device.number): the package version \(version.id) of \(item.path) is not kept whole")
                }
            }
        }
        return problems
    }

    /// The package the history lists as `entry` is kept there whole: a tree that reads as
    /// exactly its members and chunks. Nil when it is.
    static func keptPackageAgrees(_ device: SimDevice, _ entry: HistoryEntry) -> String? {
        guard let kept = device.disk.readStoredPackage(entry.name, inHistory: true) else {
            return "device \(device.number): the history lists the package \(entry.path) (\(entry.name)), whose tree is gone"
        }
        guard kept.content.members == entry.item.members, kept.content.chunks.map(\.hash) == entry.item.chunks.map(\.hash) else {
            let differ = zip(kept.content.members, entry.item.members).filter { $0 != $1 }.map(\.0.path.rawValue)
            return "device \(device.number): the kept package \(entry.name) of \(entry.path) is not the version listed (at \(differ.prefix(4)))"
        }
        return nil
    }

    /// Live items inside a package, which travels as one item: there should be none.
    static func itemsInsidePackages(_ device: SimDevice, live: [RelativePath]) -> [String] {
        live.filter { device.disk.packages.package(containing: $0) != nil }.sorted().map {
            "device \(device.number): the index lists \($0), which lies inside a package"
        }
    }
}
