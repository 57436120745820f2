import Foundation
import GRDB
import UbiqModel

/// Counts over the item and need tables, for status.
extension SyncIndex {
    /// What status shows of a container: its present items by kind, conflicts, content not
    /// here and pending needs.
    public func statistics(_ container: ContainerID) throws -> ContainerStatistics {
        try pool.read { db in
            var stats = ContainerStatistics()
            guard let id = try containerID(db, container) else { return stats }
            for row in try Row.fetchAll(db, cached: """
                SELECT kind, COUNT(*), SUM(size), SUM(conflicts IS NOT NULL), SUM(absent) FROM item
                WHERE container = ? AND deleted = 0 GROUP BY kind
                """, arguments: [id]) {
                let count: Int = row[1]
                switch try ItemKind(code: row[0]) {
                case .file: stats.files = count; stats.bytes = UInt64(row[2] as Int64? ?? 0)
                case .directory: stats.directories = count
                case .symlink: stats.symlinks = count
                }
                stats.conflicts += row[3] as Int? ?? 0
                stats.notDownloaded += row[4] as Int? ?? 0
            }
            if let row = try Row.fetchOne(db, cached: "SELECT COUNT(*), SUM(size * (deleted = 0)) FROM need WHERE container = ?", arguments: [id]) {
                stats.needItems = row[0]
                stats.needBytes = UInt64(row[1] as Int64? ?? 0)
            }
            return stats
        }
    }
}
