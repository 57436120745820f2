import Foundation
import GRDB
import UbiqModel

/// The `history` table: versions this device replaced or deleted, kept under
/// `.ubiq/history/` (``HistoryEntry``).
extension SyncIndex {
    /// Stores the entries, with their chunks as found in their history files, and returns them
    /// with their ids.
    @discardableResult
    public func addHistory(_ container: ContainerID, _ entries: [HistoryEntry]) throws -> [HistoryEntry] {
        guard !entries.isEmpty else { return [] }
        return try write { db in
            let id = try containerRow(db, container).id
            return try entries.map { entry in
                try db.execute(cached: """
                    INSERT INTO history (container, path, name, item, keptAt, reason, byDevice, size)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [id, entry.path.rawValue, entry.name, IndexBinary.encode(entry.item), entry.keptAt,
                                     entry.reason.rawValue, entry.by.rawValue, Int64(clamping: entry.item.size)])
                var stored = entry
                stored.id = db.lastInsertedRowID
                try Self.replaceKeptChunks(db, container: id, name: entry.name, item: entry.item)
                return stored
            }
        }
    }

    /// Lists the chunks of a kept version (nil: forgets them): a file's at its name, a
    /// package's files each at `name/inner/path`.
    static func replaceKeptChunks(_ db: Database, container: Int64, name: String, item: Item?) throws {
        let package = item?.kind == .package
        try replaceChunks(db, container: container, file: .history(name), chunks: package ? [] : item?.chunks ?? [])
        if item == nil || package {
            try replaceTreeChunks(db, container: container, folder: .history(name), content: package ? try? item?.packageContent() : nil)
        }
    }

    public func removeHistory(_ container: ContainerID, ids: some Collection<Int64>) throws {
        guard !ids.isEmpty else { return }
        try write { db in
            let id = try containerRow(db, container).id
            for entry in ids {
                guard let name = try String.fetchOne(db, cached: "SELECT name FROM history WHERE container = ? AND id = ?",
                                                     arguments: [id, entry]) else { continue }
                try db.execute(cached: "DELETE FROM history WHERE container = ? AND id = ?", arguments: [id, entry])
                try Self.replaceKeptChunks(db, container: id, name: name, item: nil)
            }
        }
    }

    /// The kept versions of `path`, newest first; of every path when nil.
    public func history(_ container: ContainerID, path: RelativePath? = nil) throws -> [HistoryEntry] {
        try read { db in
            guard let id = try containerID(db, container) else { return [] }
            let rows = if let path {
                try Row.fetchAll(db, cached: """
                    SELECT id, name, item, keptAt, reason, byDevice FROM history WHERE container = ? AND path = ?
                    ORDER BY keptAt DESC, id DESC
                    """, arguments: [id, path.rawValue])
            } else {
                try Row.fetchAll(db, cached: """
                    SELECT id, name, item, keptAt, reason, byDevice FROM history WHERE container = ? ORDER BY keptAt DESC, id DESC
                    """, arguments: [id])
            }
            return try rows.map(Self.historyEntry)
        }
    }

    public func historyEntry(_ container: ContainerID, id entry: Int64) throws -> HistoryEntry? {
        try read { db in
            guard let id = try containerID(db, container) else { return nil }
            return try Row.fetchOne(db, cached: """
                SELECT id, name, item, keptAt, reason, byDevice FROM history WHERE container = ? AND id = ?
                """, arguments: [id, entry]).map(Self.historyEntry)
        }
    }

    /// How many versions are kept and their bytes.
    public func historySize(_ container: ContainerID) throws -> (count: Int, bytes: UInt64) {
        try read { db in
            guard let id = try containerID(db, container),
                  let row = try Row.fetchOne(db, cached: "SELECT COUNT(*), TOTAL(size) FROM history WHERE container = ?", arguments: [id])
            else { return (0, 0) }
            return (row[0], UInt64(row[1] as Double))
        }
    }

    /// Since when (ms since 1970) the container's history has been kept here; nil before
    /// ``noteHistoryStart(_:at:)``.
    public func historySince(_ container: ContainerID) throws -> Int64? {
        try read { db in
            guard let id = try containerID(db, container) else { return nil }
            return try Int64.fetchOne(db, cached: "SELECT historySince FROM container WHERE id = ?", arguments: [id])
        }
    }

    /// Records `now` as the start of the container's history, where none is recorded yet.
    public func noteHistoryStart(_ container: ContainerID, at now: Int64) throws {
        try write { db in
            let id = try containerRow(db, container).id
            try db.execute(cached: "UPDATE container SET historySince = ? WHERE id = ? AND historySince IS NULL", arguments: [now, id])
        }
    }

    private static func historyEntry(_ row: Row) throws -> HistoryEntry {
        guard let reason = HistoryEntry.Reason(rawValue: row[4]) else {
            throw IndexError(.corrupt, "history entry \(row[0] as Int64) has an unknown reason \(row[4] as Int)")
        }
        return HistoryEntry(id: row[0], item: try IndexBinary.decodeItem(row[2]), name: row[1], keptAt: row[3], reason: reason,
                            by: DeviceID(row[5] as String))
    }
}
