/// What importing transactions did to a store, as `records.didImport` tells subscribers:
/// the records that appeared, changed and went, and the writes that lost.
public struct RecordImportSummary: Hashable, Sendable {
    public var inserted: [RecordKey] = []
    public var updated: [RecordKey] = []
    public var deleted: [RecordKey] = []
    public var conflicts: [RecordConflict] = []

    public init() {}

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && conflicts.isEmpty }

    /// Adds what one change did to `key`.
    public mutating func add(_ key: RecordKey, _ outcome: RecordOutcome, lost: [RecordConflict]) {
        switch outcome {
        case .inserted: inserted.append(key)
        case .updated: updated.append(key)
        case .deleted: deleted.append(key)
        case .unchanged: break
        }
        conflicts += lost
    }

    /// Adds a later import's summary: a record counts once, by what became of it.
    public mutating func merge(_ later: Self) {
        for key in later.inserted {
            if let gone = deleted.firstIndex(of: key) {
                // There before this summary, gone, and back: to a subscriber it changed.
                deleted.remove(at: gone)
                if !updated.contains(key) { updated.append(key) }
            } else if !updated.contains(key), !inserted.contains(key) {
                inserted.append(key)
            }
        }
        for key in later.updated where !inserted.contains(key) && !updated.contains(key) { updated.append(key) }
        for key in later.deleted {
            let wasNew = inserted.contains(key)
            inserted.removeAll { $0 == key }
            updated.removeAll { $0 == key }
            if !wasNew, !deleted.contains(key) { deleted.append(key) }
        }
        conflicts += later.conflicts
    }
}
