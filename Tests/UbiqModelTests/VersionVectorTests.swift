import Testing
import UbiqModel

@Suite struct VersionVectorTests {
    let a = DeviceID("AAAA"), b = DeviceID("BBBB"), c = DeviceID("CCCC")

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
