import Testing
@testable import UbiqModel

/// The merge of record stores: per attribute, causally later wins and concurrent writes go
/// to the later clock; a delete wins over what it had not seen; and every device that
/// imports the same transactions, in whatever order they arrive, holds the same records.
struct RecordMergeTests {
    static let store = try! RecordStoreName("todos")
    static let (a, b, c) = (DeviceID("AAAA"), DeviceID("BBBB"), DeviceID("CCCC"))
    static let task = try! RecordKey(entity: RecordName("Task"), id: RecordID("t-1"))
    static func name(_ raw: String) -> RecordName { try! RecordName(raw) }
    static func text(_ raw: String) -> RecordValue { .value(.string(raw)) }

    static func transaction(_ author: DeviceID, _ version: [DeviceID: UInt64], at wall: Int64, _ changes: [RecordChange]) -> RecordTransaction {
        RecordTransaction(store: store, author: author, version: VersionVector(version), clock: HybridTimestamp(wall: wall, logical: 0), changes: changes)
    }

    static func apply(_ transactions: [RecordTransaction], to state: inout RecordState) -> [RecordConflict] {
        transactions.flatMap { transaction in transaction.changes.flatMap { state.apply($0, of: transaction).1 } }
    }

    @Test func concurrentWritesOfAnAttributeGoToTheLaterClockAndTheLoserIsReported() {
        let insert = Self.transaction(Self.a, [Self.a: 1], at: 10, [.insert(Self.task, attributes: [Self.name("title"): Self.text("milk")])])
        let onA = Self.transaction(Self.a, [Self.a: 2], at: 30, [.update(Self.task, attributes: [Self.name("title"): Self.text("oat milk")])])
        let onB = Self.transaction(Self.b, [Self.a: 1, Self.b: 1], at: 20,
                                   [.update(Self.task, attributes: [Self.name("title"): Self.text("soy milk"), Self.name("done"): .value(.bool(true))])])
        for order in [[insert, onA, onB], [insert, onB, onA]] {
            var state = RecordState()
            let lost = Self.apply(order, to: &state)
            #expect(state.values == [Self.name("title"): Self.text("oat milk"), Self.name("done"): .value(.bool(true))])
            #expect(lost == [RecordConflict(key: Self.task, kind: .attribute, attribute: Self.name("title"), lost: Self.text("soy milk"), lostBy: onB.dot)])
        }
        // Made after seeing the other: it wins whatever the clocks, and nothing is reported.
        let later = Self.transaction(Self.b, [Self.a: 2, Self.b: 2], at: 40, [.update(Self.task, attributes: [Self.name("title"): nil])])
        var state = RecordState()
        #expect(Self.apply([insert, onA, onB, later], to: &state).count == 1)
        #expect(state.values == [Self.name("done"): .value(.bool(true))])
    }

    @Test func aDeleteWinsOverChangesItHadNotSeenAndAnInsertAfterItBringsTheRecordBack() {
        let insert = Self.transaction(Self.a, [Self.a: 1], at: 10, [.insert(Self.task, attributes: [Self.name("title"): Self.text("milk")])])
        let delete = Self.transaction(Self.a, [Self.a: 2], at: 20, [.delete(Self.task)])
        let update = Self.transaction(Self.b, [Self.a: 1, Self.b: 1], at: 30, [.update(Self.task, attributes: [Self.name("title"): Self.text("bread")])])
        for order in [[insert, delete, update], [insert, update, delete]] {
            var state = RecordState()
            let lost = Self.apply(order, to: &state)
            #expect(!state.isAlive && state.values.isEmpty && state.deletes == [delete.dot])
            #expect(lost.map(\.kind) == [.deleted] && lost.map(\.lostBy) == [update.dot])
        }
        // An insert that has seen the delete brings it back with only its own attributes.
        let again = Self.transaction(Self.b, [Self.a: 2, Self.b: 2], at: 40, [.insert(Self.task, attributes: [Self.name("note"): Self.text("again")])])
        var state = RecordState()
        _ = Self.apply([insert, update, delete, again], to: &state)
        #expect(state.isAlive && state.values == [Self.name("note"): Self.text("again")])
        #expect(state.apply(.delete(Self.task), of: Self.transaction(Self.c, [Self.a: 2, Self.b: 2, Self.c: 1], at: 50, [])).0 == .deleted)
    }

    @Test func whatAnImportDidIsSaid() {
        let insert = Self.transaction(Self.a, [Self.a: 1], at: 10, [.insert(Self.task, attributes: [Self.name("title"): Self.text("milk")])])
        let same = Self.transaction(Self.a, [Self.a: 2], at: 20, [.update(Self.task, attributes: [Self.name("title"): Self.text("milk")])])
        var state = RecordState()
        #expect(state.apply(insert.changes[0], of: insert).0 == .inserted)
        #expect(state.apply(same.changes[0], of: same).0 == .unchanged)
        let missing = Self.transaction(Self.b, [Self.b: 1], at: 5, [.update(try! RecordKey(entity: Self.name("Task"), id: RecordID("none")), attributes: [:])])
        var none = RecordState()
        #expect(none.apply(missing.changes[0], of: missing).0 == .unchanged && !none.isAlive)
    }

    @Test func theImportOrderIsCausalAndRefusesAClockThatGoesBack() {
        let first = Self.transaction(Self.a, [Self.a: 1], at: 10, [.delete(Self.task)])
        let second = Self.transaction(Self.a, [Self.a: 2], at: 20, [.delete(Self.task)])
        let onB = Self.transaction(Self.b, [Self.a: 2, Self.b: 1], at: 30, [.delete(Self.task)])
        let backwards = Self.transaction(Self.c, [Self.a: 2, Self.c: 1], at: 15, [.delete(Self.task)])
        let order = RecordImportOrder([onB, second, backwards, first, first], imported: .empty) { _ in nil }
        #expect(order.ready.map(\.dot) == [first.dot, second.dot, onB.dot])
        #expect(order.refused.map(\.transaction.dot) == [backwards.dot] && order.refused.first?.error.code == .invalidLog)
        // Without A's first, everything that has seen it waits.
        let waiting = RecordImportOrder([onB, second], imported: .empty) { _ in nil }
        #expect(waiting.ready.isEmpty && waiting.waiting.map(\.dot) == [second.dot, onB.dot])
        // What is imported already is skipped; its clock, where known, is checked.
        let known = RecordImportOrder([first, second, onB], imported: VersionVector([Self.a: 2])) { $0 == second.dot ? HybridTimestamp(wall: 31, logical: 0) : nil }
        #expect(known.ready.isEmpty && known.refused.map(\.transaction.dot) == [onB.dot])
    }

    @Test func namesAndTransactionsAreChecked() throws {
        for bad in ["", ".hidden", "a/b", String(repeating: "x", count: 65), "tab\t"] { #expect(throws: RecordError.self) { try RecordStoreName(bad) } }
        for bad in ["", "1st", "has space", "dash-ed"] { #expect(throws: RecordError.self) { try RecordName(bad) } }
        for bad in ["", "new\nline", String(repeating: "é", count: 65)] { #expect(throws: RecordError.self) { try RecordID(bad) } }
        #expect(try RecordName("_private2").rawValue == "_private2")
        let twice = Self.transaction(Self.a, [Self.a: 1], at: 1, [.delete(Self.task), .update(Self.task, attributes: [:])])
        #expect(throws: RecordError(.invalidTransaction, "record Task/t-1 is changed twice in one transaction: combine the changes")) { try twice.validate() }
        let unnumbered = Self.transaction(Self.a, [Self.b: 1], at: 1, [.delete(Self.task)])
        #expect { try unnumbered.validate() } throws: { ($0 as? RecordError)?.code == .invalidLog }
        let limits = RecordLimits(maxChanges: 2, maxAttributes: 1, maxValueBytes: 4, maxTransactionBytes: 40)
        let big = Self.transaction(Self.a, [Self.a: 1], at: 1, [.insert(Self.task, attributes: [Self.name("title"): Self.text("too long")])])
        let many = Self.transaction(Self.a, [Self.a: 1], at: 1, [.insert(Self.task, attributes: [Self.name("x"): Self.text("1"), Self.name("y"): Self.text("2")])])
        for transaction in [big, many] {
            #expect { try transaction.validate(limits: limits) } throws: { ($0 as? RecordError)?.code == .tooLarge }
        }
        try Self.transaction(Self.a, [Self.a: 1], at: 1, [.insert(Self.task, attributes: [Self.name("x"): Self.text("1")])]).validate(limits: limits)
    }
}
