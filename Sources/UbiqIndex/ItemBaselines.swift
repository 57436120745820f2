#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

/// The stat facts a scan compares against, for every path the index holds under one root:
/// two arrays in the index's path order, searched by halving. A dictionary of a million
/// paths rounds its table up to two million slots of key and value (117 MiB); these arrays
/// hold the million entries alone (56 MiB), and the paths are the index's own strings.
public struct ItemBaselines: Sendable, Sequence {
    /// In byte order of their UTF-8, as SQLite orders `path` (BINARY collation).
    public private(set) var paths: [RelativePath]
    public private(set) var values: [ItemBaseline]

    public init() {
        paths = []
        values = []
    }

    /// Takes rows in any order; those the index hands out in path order are not sorted again.
    public init(_ rows: some Sequence<(RelativePath, ItemBaseline)>) {
        var builder = Builder()
        for (path, baseline) in rows { builder.append(path, baseline) }
        self = builder.finish()
    }

    public var count: Int { paths.count }
    public var isEmpty: Bool { paths.isEmpty }

    public subscript(path: RelativePath) -> ItemBaseline? {
        position(of: path).map { values[$0] }
    }

    /// The table's own copy of `path`, for a scan's `seen` set to share its storage; nil
    /// where it holds no entry there.
    public func ownKey(_ path: RelativePath) -> RelativePath? {
        position(of: path).map { paths[$0] }
    }

    /// The paths at `folder` and inside it: two searches, then a run of the array.
    public func paths(atOrInside folder: RelativePath) -> [RelativePath] {
        let prefix = folder.rawValue + "/"
        let start = lowerBound(prefix)
        var end = start
        while end < paths.count, paths[end].rawValue.utf8.starts(with: prefix.utf8) { end += 1 }
        if let own = position(of: folder) { return [paths[own]] + paths[start..<end] }
        return Array(paths[start..<end])
    }

    public func makeIterator() -> Zip2Sequence<[RelativePath], [ItemBaseline]>.Iterator {
        zip(paths, values).makeIterator()
    }

    private func position(of path: RelativePath) -> Int? {
        let found = lowerBound(path.rawValue)
        guard found < paths.count, Self.order(paths[found].rawValue, path.rawValue) == 0 else { return nil }
        return found
    }

    /// The first position whose path is not below `key` in byte order.
    private func lowerBound(_ key: String) -> Int {
        var low = 0
        var high = paths.count
        while low < high {
            let middle = (low + high) / 2
            if Self.order(paths[middle].rawValue, key) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Negative, zero or positive as `a`'s UTF-8 comes before, equals or comes after `b`'s.
    static func order(_ a: String, _ b: String) -> Int {
        let compared = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                let common = Swift.min(a.count, b.count)
                if common > 0, let aBase = a.baseAddress, let bBase = b.baseAddress {
                    let compared = memcmp(aBase, bBase, common)
                    if compared != 0 { return Int(compared) }
                }
                return a.count - b.count
            }
        }
        if let compared, let compared { return compared }
        // A string not stored as UTF-8 (bridged), which SQLite's never are.
        if a.utf8.elementsEqual(b.utf8) { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    /// Collects rows, noting whether they came in order.
    struct Builder {
        var paths: [RelativePath] = []
        var values: [ItemBaseline] = []
        var sorted = true

        mutating func reserve(_ count: Int) {
            paths.reserveCapacity(count)
            values.reserveCapacity(count)
        }

        mutating func append(_ path: RelativePath, _ baseline: ItemBaseline) {
            if sorted, let last = paths.last, ItemBaselines.order(last.rawValue, path.rawValue) >= 0 { sorted = false }
            paths.append(path)
            values.append(baseline)
        }

        consuming func finish() -> ItemBaselines {
            var table = ItemBaselines()
            guard !sorted else {
                table.paths = paths
                table.values = values
                return table
            }
            // Out of order (or a path twice: the last one stands, as in a dictionary).
            var last: [RelativePath: Int] = [:]
            for (position, path) in paths.enumerated() { last[path] = position }
            let kept = last.values.sorted { ItemBaselines.order(paths[$0].rawValue, paths[$1].rawValue) < 0 }
            table.paths = kept.map { paths[$0] }
            table.values = kept.map { values[$0] }
            return table
        }
    }
}
