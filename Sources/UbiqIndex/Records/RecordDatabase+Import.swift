import GRDB
import UbiqModel

extension RecordDatabase {
    /// Applies `transaction` whole, in one SQLite transaction, and records it as imported;
    /// the caller gives transactions in ``RecordImportOrder``. One imported already changes
    /// nothing.
    public func apply(_ transaction: RecordTransaction) throws(IndexError) -> RecordImportSummary {
        try write { db in
            var summary = RecordImportSummary()
            let dot = transaction.dot
            guard try !(Bool.fetchOne(db, sql: "SELECT 1 FROM imported WHERE device = ? AND counter = ?",
                                      arguments: [dot.device.rawValue, Int64(dot.counter)]) ?? false) else { return summary }
            for change in transaction.changes {
                var state = try Self.state(of: change.key, in: db)
                let (outcome, lost) = state.apply(change, of: transaction)
                try Self.save(state, of: change.key, in: db)
                summary.add(change.key, outcome, lost: lost)
            }
            try db.execute(sql: "INSERT INTO imported (device, counter, clockWall, clockLogical) VALUES (?, ?, ?, ?)",
                           arguments: [dot.device.rawValue, Int64(dot.counter), transaction.clock.wall, Int64(transaction.clock.logical)])
            return summary
        }
    }

    /// Forgets every record and import: the store's logs were replaced (the store deleted and
    /// made anew) and it is rebuilt from them.
    public func removeAll() throws(IndexError) {
        try write { db in try db.execute(sql: "DELETE FROM attribute; DELETE FROM record; DELETE FROM imported") }
    }

    /// Imports what of `pending` can be imported now, each transaction whole, in the order
    /// every device uses; returns what changed, and what waits or was refused.
    public func importTransactions(_ pending: [RecordTransaction]) throws(IndexError) -> (summary: RecordImportSummary, order: RecordImportOrder) {
        let imported = try imported()
        var known: [RecordDot: HybridTimestamp?] = [:]
        var lookupError: IndexError?
        let order = RecordImportOrder(pending, imported: imported) { dot in
            if let clock = known[dot] { return clock }
            do {
                let clock = try self.clock(of: dot)
                known[dot] = clock
                return clock
            } catch {
                lookupError = (error as? IndexError) ?? IndexError(.database, "record store: \(error)")
                return nil
            }
        }
        if let lookupError { throw lookupError }
        var summary = RecordImportSummary()
        for transaction in order.ready { summary.merge(try apply(transaction)) }
        return (summary, order)
    }
}
