import Testing
import UbiqModel
import UbiqTestSupport

/// Whatever order a store's transactions arrive in, every device that has imported them all
/// holds the same records: random histories of three devices that save while they see only
/// some of each other's transactions, imported by replicas in random batches.
struct RecordConvergenceTests {
    @Test(arguments: 1...40 as ClosedRange<UInt64>) func everyArrivalOrderEndsWithTheSameRecords(seed: UInt64) throws {
        let all = RecordHistories.random(seed: seed, steps: 60, store: try RecordStoreName("s"))
        var random = SplitMix64(seed: seed &* 7919)
        var dumps: [[RecordKey: [RecordName: RecordValue]]] = []
        for _ in 0..<6 {
            var replica = RecordHistories.Replica()
            var left = all
            left.shuffle(using: &random)
            while !left.isEmpty {
                let count = Int(random.next() % UInt64(min(left.count, 8))) + 1
                replica.receive(Array(left.prefix(count)))
                left.removeFirst(count)
            }
            #expect(replica.waiting.isEmpty && replica.refused == 0)
            #expect(replica.imported == all.reduce(VersionVector.empty) { $0.merged(with: VersionVector([$1.author: $1.counter])) })
            dumps.append(replica.dump)
        }
        #expect(dumps.allSatisfy { $0 == dumps[0] }, "seed \(seed): replicas differ")
        #expect(!dumps[0].isEmpty)
    }
}
