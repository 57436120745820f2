import Foundation
import GRDB
import UbiqModel

/// Counts over the item and need tables, for status.
extension SyncIndex {
    /// What status shows of a container: its present items by kind, conflicts, content not
    /// here and pending needs.
    /// The counters are kept until the index is next written.
    public func statistics(_ container: ContainerID) throws -> ContainerStatistics {
        // Read before the counters: a write during the read leaves them marked as older.
        let generation = writes.current
        if let kept = writes.statistics(container, at: generation) { return kept }
        let value = try countStatistics(container)
        writes.keep(value, of: container, at: generation)
        return value
    }

    private func countStatistics(_ container: ContainerID) throws -> ContainerStatistics {
        try read { db in
            var stats = ContainerStatistics()
            guard let id = try containerID(db, container) else { return stats }
            for totals in try KindTotalsRow.fetchAll(db, cached: KindTotalsRow.select, arguments: [id]) {
                switch totals.kind {
                case .file: stats.files = totals.count; stats.bytes += totals.bytes
                case .directory: stats.directories = totals.count
                case .symlink: stats.symlinks = totals.count
                case .package: stats.packages = totals.count; stats.bytes += totals.bytes
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
