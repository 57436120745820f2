import Foundation
import GRDB
import UbiqModel

/// The `item` table: each path of a container with its synced item, stat fingerprint and
/// local sequence.
extension SyncIndex {
    public func item(_ container: ContainerID, _ path: RelativePath) throws -> IndexedItem? {
        try read { db in
            guard let id = try containerID(db, container) else { return nil }
            return try ItemRow.fetchOne(db, cached: "SELECT * FROM item WHERE container = ? AND path = ?", arguments: [id, path.rawValue])?
                .indexed
        }
    }

    /// The items at these paths, in one read; paths the index does not know are left out.
    public func items(_ container: ContainerID, at paths: [RelativePath]) throws -> [RelativePath: IndexedItem] {
        guard !paths.isEmpty else { return [:] }
        return try read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: IndexedItem] = [:]
            for path in paths {
                if let row = try ItemRow.fetchOne(db, cached: "SELECT * FROM item WHERE container = ? AND path = ?", arguments: [id, path.rawValue]) {
                    result[path] = row.indexed
                }
            }
            return result
        }
    }

    /// Paths of files last seen on disk as one of `inodes`, by inode: the other names of a
    /// hard-linked file. Reads the whole table; asked only for inodes with several names.
    public func paths(_ container: ContainerID, withInodes inodes: Set<UInt64>) throws -> [UInt64: Set<RelativePath>] {
        guard !inodes.isEmpty else { return [:] }
        return try read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [UInt64: Set<RelativePath>] = [:]
            let rows = try Row.fetchAll(db, cached: "SELECT path, statinode FROM item WHERE container = ? AND deleted = 0 AND statinode IS NOT NULL",
                                        arguments: [id])
            for row in rows {
                let inode = UInt64(bitPattern: row[1] as Int64)
                guard inodes.contains(inode) else { continue }
                result[inode, default: []].insert(try ItemRow.path(row[0] as String))
            }
            return result
        }
    }

    /// Items in the folder `parent` (the container root when nil), not recursive.
    public func children(_ container: ContainerID, of parent: RelativePath?) throws -> [IndexedItem] {
        try read { db in
            guard let id = try containerID(db, container) else { return [] }
            let prefix = parent.map { $0.rawValue + "/" } ?? ""
            let rows = try ItemRow.fetchAll(db, cached: """
                SELECT * FROM item WHERE container = ? AND path >= ? AND path < ? ORDER BY path
                """, arguments: [id, prefix, prefix + "\u{10FFFF}"])
            return rows.map(\.indexed).filter {
                !$0.item.path.rawValue.dropFirst(prefix.count).contains("/")
            }
        }
    }

    /// A present item whose path differs from `path` only in case.
    public func caseTwin(_ container: ContainerID, of path: RelativePath) throws -> RelativePath? {
        try caseTwins(container, of: [path])[path]
    }

    /// ``caseTwin(_:of:)`` of many paths in one read; paths without a twin are left out.
    public func caseTwins(_ container: ContainerID, of paths: [RelativePath]) throws -> [RelativePath: RelativePath] {
        guard !paths.isEmpty else { return [:] }
        return try read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: RelativePath] = [:]
            for path in paths {
                let twin = try String.fetchOne(db, cached: """
                    SELECT path FROM item WHERE container = ? AND folded = ? AND path != ? AND deleted = 0 LIMIT 1
                    """, arguments: [id, path.caseFolded, path.rawValue]).flatMap { try? RelativePath($0) }
                if let twin { result[path] = twin }
            }
            return result
        }
    }

    /// Every item at or under `root` (the whole container when nil).
    public func items(_ container: ContainerID, under root: RelativePath? = nil) throws -> [IndexedItem] {
        try read { db in
            guard let id = try containerID(db, container) else { return [] }
            var result: [IndexedItem] = []
            try Self.forEachItem(ItemRow.self, db, "SELECT * FROM item", container: id, under: root) { result.append($0.indexed) }
            return result
        }
    }

    /// The baseline of every item at or under each root (the whole container for nil), in
    /// the order given, in one read: a scan of many paths (a group of applied files, a burst
    /// of watcher events) pays for one transaction.
    public func baselines(_ container: ContainerID, under roots: [RelativePath?]) throws -> [ItemBaselines] {
        try read { db in
            guard let id = try containerID(db, container) else { return roots.map { _ in ItemBaselines() } }
            return try roots.map { root in
                var result = ItemBaselines.Builder()
                if root == nil { result.reserve(try Int.fetchOne(db, cached: "SELECT COUNT(*) FROM item WHERE container = ?", arguments: [id]) ?? 0) }
                try Self.forEachItem(ItemBaselineRow.self, db, ItemBaselineRow.select, container: id, under: root) { row in
                    result.append(row.path, row.baseline)
                }
                return result.finish()
            }
        }
    }

    /// Calls `body` with each row of `select` (a `SELECT … FROM item`) at or under `root`
    /// (every item of the container when nil), in path order, through a cursor: a full
    /// rescan of a large container reads every item. A subtree is two searches of the
    /// primary key; with an OR between them SQLite reads every item of the container.
    private static func forEachItem<Record: FetchableRecord>(
        _ type: Record.Type, _ db: Database, _ select: String, container id: Int64, under root: RelativePath?, _ body: (Record) throws -> Void
    ) throws {
        let rows: RecordCursor<Record>
        if let root {
            if let row = try Record.fetchOne(db, cached: "\(select) WHERE container = ? AND path = ?", arguments: [id, root.rawValue]) {
                try body(row)
            }
            rows = try Record.fetchCursor(db, cached: "\(select) WHERE container = ? AND path >= ? AND path < ? ORDER BY path",
                                          arguments: [id, root.rawValue + "/", root.rawValue + "/\u{10FFFF}"])
        } else {
            rows = try Record.fetchCursor(db, cached: "\(select) WHERE container = ? ORDER BY path", arguments: [id])
        }
        while let row = try rows.next() { try body(row) }
    }

    /// Items whose sequence is above `sequence`, in sequence order.
    public func items(_ container: ContainerID, after sequence: Int64, limit: Int) throws -> [IndexedItem] {
        try read { db in
            guard let id = try containerID(db, container) else { return [] }
            return try ItemRow.fetchAll(db, cached: """
                SELECT * FROM item WHERE container = ? AND sequence > ? ORDER BY sequence LIMIT ?
                """, arguments: [id, sequence, limit]).map(\.indexed)
        }
    }

    /// Writes items, each with the container's next sequence number, and removes any need
    /// they settle, in one transaction. Returns the container's new sequence.
    @discardableResult
    public func commit(_ container: ContainerID, _ writes: [ItemWrite]) throws -> Int64 {
        try write { db in
            var row = try containerRow(db, container)
            for write in writes {
                row.sequence += 1
                try Self.upsert(db, container: row.id, write.item, sequence: row.sequence, stat: write.stat, downloaded: write.downloaded)
                if write.settlesNeed {
                    try Self.settleNeed(db, container: row.id, path: write.item.path, upTo: write.item.version)
                }
            }
            try db.execute(cached: "UPDATE container SET sequence = ? WHERE id = ?", arguments: [row.sequence, row.id])
            return row.sequence
        }
    }

    /// Gives the items at `paths` the container's next sequence numbers, unchanged, so that
    /// peers hear of them again (whether this device holds their content changed); paths
    /// the index does not know are left out. Returns the container's new sequence.
    @discardableResult
    public func resequence(_ container: ContainerID, _ paths: some Sequence<RelativePath>) throws -> Int64 {
        try write { db in
            var row = try containerRow(db, container)
            for path in paths {
                try db.execute(cached: "UPDATE item SET sequence = ? WHERE container = ? AND path = ?",
                               arguments: [row.sequence + 1, row.id, path.rawValue])
                if db.changesCount > 0 { row.sequence += 1 }
            }
            try db.execute(cached: "UPDATE container SET sequence = ? WHERE id = ?", arguments: [row.sequence, row.id])
            return row.sequence
        }
    }

    /// Records new stat fingerprints for items whose content did not change (an mtime-only
    /// change is no new version), in one transaction.
    public func updateStats(_ container: ContainerID, _ stats: [(RelativePath, FileStat)]) throws {
        guard !stats.isEmpty else { return }
        try write { db in
            let id = try containerRow(db, container).id
            for (path, stat) in stats {
                try db.execute(cached: """
                    UPDATE item SET statSize = ?, statMtime = ?, statCtime = ?, statInode = ? WHERE container = ? AND path = ?
                    """, arguments: [Int64(stat.size), stat.mtimeNs, stat.ctimeNs, Int64(bitPattern: stat.inode), id, path.rawValue])
            }
        }
    }

    /// The items of `container` that have unresolved conflict versions.
    public func conflictedItems(_ container: ContainerID) throws -> [Item] {
        try read { db in
            guard let id = try containerID(db, container) else { return [] }
            return try ItemRow.fetchAll(db, cached: "SELECT * FROM item WHERE container = ? AND conflicts IS NOT NULL", arguments: [id])
                .map(\.indexed.item)
        }
    }

    /// Writes the item's row with `sequence`, and its chunk rows.
    static func upsert(_ db: Database, container: Int64, _ item: Item, sequence: Int64, stat: FileStat?,
                       downloaded: Bool) throws {
        let absent = !downloaded && !item.deleted && item.kind.hasBytes
        let row = ItemRow(container: container, indexed: IndexedItem(item: item, sequence: sequence, stat: stat, downloaded: !absent))
        try db.execute(cached: ItemRow.insertOrReplace, arguments: row.arguments)
        // The chunk table lists only what can be read here.
        try replaceChunks(db, container: container, file: .item(item.path),
                          chunks: item.deleted || item.kind != .file || absent ? [] : item.chunks)
        if item.kind == .package {
            // Its files' chunks at their own paths inside it, so they are read like any file's.
            try replaceTreeChunks(db, container: container, folder: .item(item.path),
                                  content: item.deleted || absent ? nil : try? item.packageContent())
        }
    }
}

/// One item to store, with what the disk now holds for it.
public struct ItemWrite: Sendable {
    public var item: Item
    public var stat: FileStat?
    /// True when this write applies a pending need for the same path: the need is dropped if
    /// this item's version covers it.
    public var settlesNeed: Bool
    /// False to record the item without its content (on-demand containers, eviction).
    public var downloaded: Bool

    public init(item: Item, stat: FileStat?, settlesNeed: Bool = false, downloaded: Bool = true) {
        self.item = item
        self.stat = stat
        self.settlesNeed = settlesNeed
        self.downloaded = downloaded
    }
}
