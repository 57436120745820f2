import Testing
import UbiqModel

@Suite struct VersionVectorTests {
    let a = DeviceID("AAAA"), b = DeviceID("BBBB"), c = DeviceID("CCCC")

    /// A change counted past a later counter of the same device elsewhere (a need not applied
    /// yet) is not covered by that version: the two are concurrent.
    @Test func anIncrementPastAnotherVectorIsNotCoveredByIt() {
        let local = VersionVector([a: 3, b: 5])
        let need = VersionVector([a: 4, b: 6])
        #expect(local.incremented(by: b).compare(to: need) == .dominated)
        let next = local.incremented(by: b, past: need)
        #expect(next == VersionVector([a: 3, b: 7]))
        #expect(next.compare(to: need) == .concurrent)
        #expect(local.incremented(by: b, past: nil) == local.incremented(by: b))
    }

    @Test func orderOfIncrements() {
        let base = VersionVector().incremented(by: a)
        let later = base.incremented(by: b)
        #expect(base.compare(to: base) == .equal)
        #expect(later.compare(to: base) == .dominates)
        #expect(base.compare(to: later) == .dominated)
        #expect(VersionVector.empty.compare(to: base) == .dominated)
    }

    @Test func concurrentEditsAreConcurrent() {
        let base = VersionVector([a: 1])
        let left = base.incremented(by: a), right = base.incremented(by: b)
        #expect(left.compare(to: right) == .concurrent)
        #expect(right.compare(to: left) == .concurrent)
    }

    @Test func mergeIsElementwiseMaximumAndDominatesBoth() {
        let left = VersionVector([a: 3, b: 1]), right = VersionVector([b: 2, c: 5])
        let merged = left.merged(with: right)
        #expect(merged == VersionVector([a: 3, b: 2, c: 5]))
        #expect(merged.compare(to: left) == .dominates)
        #expect(merged.compare(to: right) == .dominates)
        #expect(merged == right.merged(with: left))
    }

    @Test func zeroCountersAreNotStored() {
        #expect(VersionVector([a: 0]) == VersionVector.empty)
        #expect(VersionVector([a: 0, b: 1]).compare(to: VersionVector([b: 1])) == .equal)
    }
}
