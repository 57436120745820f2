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
            for totals in try KindTotalsRow.fetchAll(db, cached: KindTotalsRow.select, arguments: [id]) {
                switch totals.kind {
                case .file: stats.files = totals.count; stats.bytes = totals.bytes
                case .directory: stats.directories = totals.count
                case .symlink: stats.symlinks = totals.count
                }
                stats.conflicts += totals.conflicted
                stats.notDownloaded += totals.absent
            }
            if let needs = try NeedTotalsRow.fetchOne(db, cached: NeedTotalsRow.select, arguments: [id]) {
                stats.needItems = needs.count
                stats.needBytes = needs.bytes
            }
            return stats
        }
    }
}
