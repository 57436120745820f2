/// Which of a store's transactions a device can import now, in the order every device
/// imports them: by clock, then author (``RecordTransaction/importsBefore(_:_:)``), each
/// only once the transactions it has seen are imported (causal delivery), so each record's
/// merge (``RecordState``) sees a causal order and every device ends with the same records.
public struct RecordImportOrder: Sendable {
    /// Transactions to import now, in order.
    public var ready: [RecordTransaction] = []
    /// Transactions that have seen one not here yet; they wait for it.
    public var waiting: [RecordTransaction] = []
    /// Transactions never to import: their clock is not later than that of a transaction
    /// they claim to have seen, so the order by clock would not be causal.
    public var refused: [(transaction: RecordTransaction, error: RecordError)] = []

    /// Sorts `pending` against what is imported already (`imported`: per device, the last of
    /// its transactions imported, all before it imported too), whose clocks `clock` gives
    /// (nil where forgotten).
    public init(_ pending: [RecordTransaction], imported: VersionVector, clock: (RecordDot) -> HybridTimestamp?) {
        var done = imported
        var clocks: [RecordDot: HybridTimestamp] = [:]
        var seen = Set<RecordDot>()
        var left = pending.sorted(by: RecordTransaction.importsBefore).filter { $0.counter > imported[$0.author] && seen.insert($0.dot).inserted }
        // Honest clocks need one pass; one that waits for a transaction sorted after it is
        // refused on the next.
        while true {
            var next: [RecordTransaction] = []
            for transaction in left {
                let seenBefore = transaction.version.sortedEntries.filter { $0.device != transaction.author && $0.counter > 0 }
                guard transaction.counter == done[transaction.author] + 1, seenBefore.allSatisfy({ $0.counter <= done[$0.device] }) else {
                    next.append(transaction)
                    continue
                }
                var predecessors = seenBefore.map { RecordDot(device: $0.device, counter: $0.counter) }
                if transaction.counter > 1 { predecessors.append(RecordDot(device: transaction.author, counter: transaction.counter - 1)) }
                // A clock forgotten (the transaction is in a baseline) cannot be checked.
                if let late = predecessors.first(where: { dot in (clocks[dot] ?? clock(dot)).map { $0 >= transaction.clock } ?? false }) {
                    refused.append((transaction, RecordError(.invalidLog,
                        "transaction \(transaction.dot) is stamped \(transaction.clock), not after \(late), which it has seen; it is not imported")))
                    continue
                }
                ready.append(transaction)
                clocks[transaction.dot] = transaction.clock
                done = done.merged(with: VersionVector([transaction.author: transaction.counter]))
            }
            if next.count == left.count {
                waiting = next
                return
            }
            left = next
        }
    }
}
