import UbiqModel

/// The container's files that have more than one name (hard links), as the scans last saw
/// them. A write through one name changes every name, but the watcher reports only the one
/// written through: a change at one name rescans the others too (issue 20). On the peers
/// each name is its own file.
struct HardLinks: Sendable {
    private var inodeOf: [RelativePath: UInt64] = [:]
    private var namesOf: [UInt64: Set<RelativePath>] = [:]
    /// Inodes whose other names were looked up already (some may lie outside the container).
    private var lookedUp: Set<UInt64> = []

    var isEmpty: Bool { inodeOf.isEmpty }

    /// What a scan of `roots` (nil: the whole container) found: the names it saw with several
    /// links replace what was known under those roots.
    mutating func scanned(_ roots: [RelativePath?], found: [RelativePath: UInt64]) {
        if roots.contains(where: { $0 == nil }) {
            inodeOf = [:]
            namesOf = [:]
            lookedUp = []
        } else {
            let stale = inodeOf.keys.filter { path in roots.contains { path == $0! || path.isInside($0!) } }
            for path in stale { forget(path) }
        }
        add(found)
    }

    /// Adds names known to share an inode (from the index: names not scanned this time).
    mutating func add(_ names: [RelativePath: UInt64]) {
        for (path, inode) in names {
            if let old = inodeOf[path], old != inode { forget(path) }
            inodeOf[path] = inode
            namesOf[inode, default: []].insert(path)
        }
    }

    /// Inodes among `found` whose other names are not known yet, each given once: the
    /// caller looks them up.
    mutating func unknownInodes(in found: [RelativePath: UInt64]) -> Set<UInt64> {
        let unknown = Set(found.values.filter { (namesOf[$0]?.count ?? 0) < 2 }).subtracting(lookedUp)
        lookedUp.formUnion(unknown)
        return unknown
    }

    /// The other names of the files at `paths`.
    func otherNames(of paths: some Sequence<RelativePath>) -> Set<RelativePath> {
        var result: Set<RelativePath> = []
        for path in paths {
            guard let inode = inodeOf[path] else { continue }
            result.formUnion(namesOf[inode, default: []])
        }
        return result.subtracting(paths)
    }

    private mutating func forget(_ path: RelativePath) {
        guard let inode = inodeOf.removeValue(forKey: path) else { return }
        namesOf[inode]?.remove(path)
        if namesOf[inode]?.isEmpty == true { namesOf[inode] = nil }
    }
}
