import Testing
import UbiqModel

@Suite struct KeyValueRulesTests {
    let a = DeviceID("AAAA"), b = DeviceID("BBBB")

    func entry(_ value: PropertyListValue?, _ version: [DeviceID: UInt64], at wall: Int64, by device: DeviceID) -> KeyValueEntry {
        KeyValueEntry(key: "level", value: value, version: VersionVector(version),
                      timestamp: HybridTimestamp(wall: wall, logical: 0), modifiedBy: device)
    }

    @Test func aCausallyLaterWriteWinsWhateverItsTimestamp() {
        let old = entry(.integer(13), [a: 1], at: 5000, by: a)
        let newer = entry(.integer(14), [a: 1, b: 1], at: 1000, by: b)
        #expect(KeyValueReconciliation.reconcile(local: old, remote: newer) == .applyRemote(newer))
        #expect(KeyValueReconciliation.reconcile(local: newer, remote: old) == .keepLocal)
        #expect(KeyValueReconciliation.reconcile(local: nil, remote: old) == .applyRemote(old))
        #expect(KeyValueReconciliation.reconcile(local: old, remote: old) == .keepLocal)
    }

    @Test(arguments: [(Int64(2000), Int64(1000)), (1000, 2000), (1000, 1000)])
    func concurrentWritesConvergeOnTheLaterTimestamp(wallA: Int64, wallB: Int64) {
        let onA = entry(.integer(13), [a: 2], at: wallA, by: a)
        let onB = entry(.integer(1), [a: 1, b: 1], at: wallB, by: b)
        guard case .conflict(let atA, let winnerA, let loserA) = KeyValueReconciliation.reconcile(local: onA, remote: onB),
              case .conflict(let atB, let winnerB, let loserB) = KeyValueReconciliation.reconcile(local: onB, remote: onA)
        else { Issue.record("expected a conflict"); return }
        #expect(atA == atB)
        #expect(winnerA == winnerB && loserA == loserB)
        #expect(atA.version == VersionVector([a: 2, b: 1]))
        // Ties go to the larger device ID.
        let expected = wallA > wallB ? onA : onB
        #expect(winnerA == expected)
        #expect(atA.value == expected.value)
        // The merged entry dominates both, so neither side sees a conflict again.
        #expect(KeyValueReconciliation.reconcile(local: atA, remote: onA) == .keepLocal)
        #expect(KeyValueReconciliation.reconcile(local: atA, remote: atB) == .keepLocal)
    }

    @Test func aMergeThatArrivesBeforeTheLosingWriteIsStillAConflictForItsAuthor() {
        let onA = entry(.integer(13), [a: 2], at: 1000, by: a)
        let onB = entry(.integer(1), [a: 1, b: 1], at: 2000, by: b)
        guard case .conflict(let mergedOnB, _, _) = KeyValueReconciliation.reconcile(local: onB, remote: onA)
        else { Issue.record("expected a conflict"); return }
        // A gets B's merged entry, which dominates its own, before B's original write.
        #expect(KeyValueReconciliation.reconcile(local: onA, remote: mergedOnB)
            == .conflict(merged: mergedOnB, winner: mergedOnB, loser: onA))
        // A device that only held the common ancestor sees a plain change.
        let ancestor = entry(.integer(0), [a: 1], at: 500, by: a)
        #expect(KeyValueReconciliation.reconcile(local: ancestor, remote: mergedOnB) == .applyRemote(mergedOnB))
        // A knowing overwrite is no conflict.
        let overwrite = entry(.integer(14), [a: 2, b: 1], at: 1, by: b)
        #expect(KeyValueReconciliation.reconcile(local: onA, remote: overwrite) == .applyRemote(overwrite))
    }

    @Test func aRemovalIsATombstoneWithTheSameRules() {
        let set = entry(.integer(13), [a: 1], at: 1000, by: a)
        let removed = entry(nil, [a: 1, b: 1], at: 500, by: b)
        #expect(KeyValueReconciliation.reconcile(local: set, remote: removed) == .applyRemote(removed))
        let laterSet = entry(.integer(2), [a: 2], at: 3000, by: a)
        guard case .conflict(let merged, _, let loser) = KeyValueReconciliation.reconcile(local: removed, remote: laterSet)
        else { Issue.record("expected a conflict"); return }
        #expect(merged.value == .integer(2) && loser.isRemoved)
    }

    // MARK: limits

    let limits = KeyValueLimits.iCloud

    func filled(_ count: Int) -> [String: PropertyListValue] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { ("k\($0)", PropertyListValue.integer(Int64($0))) })
    }

    func refusal(_ changes: [String: PropertyListValue?], current: [String: PropertyListValue] = [:]) -> KeyValueLimitError.Code? {
        do { try limits.check(changes, current: current) } catch { return error.code }
        return nil
    }

    @Test func theKeyLimitIsTheThousandTwentyFourthKey() {
        #expect(refusal(["last": .bool(true)], current: filled(1023)) == nil)
        #expect(refusal(["one more": .bool(true)], current: filled(1024)) == .tooManyKeys)
        #expect(refusal(["k3": .bool(true)], current: filled(1024)) == nil)
    }

    @Test func keysValuesAndTotalsAreBounded() {
        #expect(refusal([String(repeating: "k", count: 64): .bool(true)]) == nil)
        #expect(refusal([String(repeating: "k", count: 65): .bool(true)]) == .keyTooLong)
        #expect(refusal([String(repeating: "é", count: 33): .bool(true)]) == .keyTooLong)
        #expect(refusal(["": .bool(true)]) == .invalidKey)
        #expect(refusal(["big": .data([UInt8](repeating: 0, count: 1_000_000))]) == nil)
        #expect(refusal(["big": .data([UInt8](repeating: 0, count: 1_000_001))]) == .valueTooLarge)
        let half = PropertyListValue.data([UInt8](repeating: 0, count: 600_000))
        #expect(refusal(["b": half], current: ["a": half]) == .storeTooLarge)
        #expect(refusal(["a": nil, "b": half], current: ["a": half]) == nil)
    }

    @Test func aStoreOverItsQuotaTakesWritesThatShrinkIt() {
        let half = PropertyListValue.data([UInt8](repeating: 0, count: 600_000))
        let over = ["a": half, "b": half]
        #expect(refusal(["a": .bool(true)], current: over) == nil)
        #expect(refusal(["c": .bool(true)], current: over) == .storeTooLarge)
        #expect(refusal(["a": nil], current: over) == nil)
    }
}
