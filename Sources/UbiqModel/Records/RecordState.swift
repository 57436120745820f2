/// One attribute's value as merged (`nil`: removed), with the write that put it there.
public struct RecordRegister: Hashable, Sendable {
    public var value: RecordValue?
    public var clock: HybridTimestamp
    public var dot: RecordDot

    public init(value: RecordValue?, clock: HybridTimestamp, dot: RecordDot) {
        self.value = value
        self.clock = clock
        self.dot = dot
    }

    /// Among concurrent writes, the later clock wins, then the larger author: every device
    /// picks the same one.
    func wins(over other: Self) -> Bool { (clock, dot.device) > (other.clock, other.dot.device) }
}

/// A write that lost to a concurrent one, reported to subscribers (`records.didImport`).
public struct RecordConflict: Hashable, Sendable {
    public enum Kind: String, Sendable {
        /// Two devices set the attribute concurrently; `lost` is the value that lost.
        case attribute
        /// A change to the record lost to a delete it had not seen: deletes win.
        case deleted
    }

    public var key: RecordKey
    public var kind: Kind
    /// The attribute, for `.attribute`.
    public var attribute: RecordName?
    public var lost: RecordValue?
    public var lostBy: RecordDot

    public init(key: RecordKey, kind: Kind, attribute: RecordName? = nil, lost: RecordValue? = nil, lostBy: RecordDot) {
        self.key = key
        self.kind = kind
        self.attribute = attribute
        self.lost = lost
        self.lostBy = lostBy
    }
}

/// What applying one change did to a record, for `records.didImport`.
public enum RecordOutcome: String, Hashable, Sendable {
    case inserted, updated, deleted, unchanged
}

/// One record as a device holds it after merging every transaction it imported: per
/// attribute the winning write, the insert that keeps it alive, and the deletes it has seen.
///
/// The rules, applied in causal order (``RecordLog``), give the same state whatever order
/// concurrent transactions arrive in:
/// - a write made after seeing an attribute's write replaces it; of concurrent writes the
///   later clock wins (then the larger device ID), and the loser is reported;
/// - a delete wins over every change to the record it had not seen (those are dropped and
///   reported); a change made after seeing the delete applies, and an insert brings the
///   record back.
public struct RecordState: Hashable, Sendable {
    /// The insert that keeps the record; nil once deleted (or never inserted here).
    public var inserted: RecordRegister?
    public var attributes: [RecordName: RecordRegister]
    /// The deletes of the record no later delete has seen; a change survives only when it
    /// has seen every one.
    public var deletes: [RecordDot]

    public init(inserted: RecordRegister? = nil, attributes: [RecordName: RecordRegister] = [:], deletes: [RecordDot] = []) {
        self.inserted = inserted
        self.attributes = attributes
        self.deletes = deletes
    }

    public var isAlive: Bool { inserted != nil }

    /// The record's attributes as clients see them.
    public var values: [RecordName: RecordValue] {
        isAlive ? attributes.compactMapValues(\.value) : [:]
    }

    /// Applies `change` (to this record) of `transaction`, whose every causal predecessor
    /// has been applied; returns what it did and the writes that lost.
    public mutating func apply(_ change: RecordChange, of transaction: RecordTransaction) -> (RecordOutcome, [RecordConflict]) {
        let dot = transaction.dot
        let key = change.key
        let before = values, wasAlive = isAlive
        var lost: [RecordConflict] = []
        switch change {
        case .delete:
            for (name, register) in attributes.sorted(by: { $0.key < $1.key }) where !transaction.covers(register.dot) {
                lost.append(RecordConflict(key: key, kind: .deleted, attribute: name, lost: register.value, lostBy: register.dot))
            }
            if let inserted, !transaction.covers(inserted.dot), !lost.contains(where: { $0.lostBy == inserted.dot }) {
                lost.append(RecordConflict(key: key, kind: .deleted, lostBy: inserted.dot))
            }
            attributes = [:]
            inserted = nil
            deletes = (deletes.filter { !transaction.covers($0) } + [dot]).sorted()
            return (wasAlive ? .deleted : .unchanged, lost)
        case .insert(_, let written):
            guard deletes.allSatisfy(transaction.covers) else { return (.unchanged, [RecordConflict(key: key, kind: .deleted, lostBy: dot)]) }
            let register = RecordRegister(value: nil, clock: transaction.clock, dot: dot)
            if let inserted, !transaction.covers(inserted.dot), inserted.wins(over: register) {} else { inserted = register }
            for (name, value) in written.sorted(by: { $0.key < $1.key }) {
                if let loser = write(name, value, transaction) { lost.append(RecordConflict(key: key, kind: .attribute, attribute: name, lost: loser.value, lostBy: loser.dot)) }
            }
        case .update(_, let written):
            guard deletes.allSatisfy(transaction.covers), isAlive else {
                return (.unchanged, [RecordConflict(key: key, kind: .deleted, lostBy: dot)])
            }
            for (name, value) in written.sorted(by: { $0.key < $1.key }) {
                if let loser = write(name, value, transaction) { lost.append(RecordConflict(key: key, kind: .attribute, attribute: name, lost: loser.value, lostBy: loser.dot)) }
            }
        }
        if !wasAlive { return (isAlive ? .inserted : .unchanged, lost) }
        return (values == before ? .unchanged : .updated, lost)
    }

    /// Merges one attribute's write; returns the concurrent write that lost, if any.
    private mutating func write(_ name: RecordName, _ value: RecordValue?, _ transaction: RecordTransaction) -> RecordRegister? {
        let register = RecordRegister(value: value, clock: transaction.clock, dot: transaction.dot)
        guard let current = attributes[name], !transaction.covers(current.dot) else {
            attributes[name] = register
            return nil
        }
        if current.wins(over: register) { return register }
        attributes[name] = register
        return current
    }
}
