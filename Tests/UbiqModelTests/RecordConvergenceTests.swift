import Testing
@testable import UbiqModel

/// Whatever order a store's transactions arrive in, every device that has imported them all
/// holds the same records: random histories of three devices that save while they see only
/// some of each other's transactions, imported by replicas in random batches.
struct RecordConvergenceTests {
    /// One device's store as the model keeps it: records, what it imported and their clocks.
    struct Replica {
        var records: [RecordKey: RecordState] = [:]
        var imported = VersionVector.empty
        var clocks: [RecordDot: HybridTimestamp] = [:]
        var waiting: [RecordTransaction] = []
        var refused = 0

        mutating func receive(_ transactions: [RecordTransaction]) {
            let order = RecordImportOrder(waiting + transactions, imported: imported) { clocks[$0] }
            for transaction in order.ready {
                for change in transaction.changes {
                    var state = records[change.key] ?? RecordState()
                    _ = state.apply(change, of: transaction)
                    records[change.key] = state
                }
                imported = imported.merged(with: VersionVector([transaction.author: transaction.counter]))
                clocks[transaction.dot] = transaction.clock
            }
            waiting = order.waiting
            refused += order.refused.count
        }

        /// What a client sees: the live records' values.
        var dump: [RecordKey: [RecordName: RecordValue]] { records.filter { $0.value.isAlive }.mapValues(\.values) }
    }

    static let devices = [DeviceID("AAAA"), DeviceID("BBBB"), DeviceID("CCCC")]
    static let keys = (0..<4).map { try! RecordKey(entity: RecordName("Task"), id: RecordID("t\($0)")) }
    static let names = ["title", "done", "rank"].map { try! RecordName($0) }

    /// A history of `steps`: each step a device saves one transaction at what it has seen, or
    /// takes in some of another device's transactions. Wall clocks disagree by up to a second.
    static func history(seed: UInt64, steps: Int) -> [RecordTransaction] {
        var random = SplitMix64(seed: seed)
        var replicas = devices.map { _ in Replica() }
        var clocks = devices.map { _ in HybridClock() }
        var made: [[RecordTransaction]] = devices.map { _ in [] }
        var all: [RecordTransaction] = []
        for step in 0..<steps {
            let d = Int(random.next() % 3)
            if random.next() % 3 == 0 {
                let from = Int(random.next() % 3)
                replicas[d].receive(Array(made[from].prefix(Int(random.next() % UInt64(made[from].count + 1)))))
                continue
            }
            let now = Int64(step * 10) + Int64(random.next() % 1000) - 500
            for dot in replicas[d].clocks.keys { clocks[d].observe(replicas[d].clocks[dot]!, now: now) }
            let counter = UInt64(made[d].count + 1)
            let version = replicas[d].imported.merged(with: VersionVector([devices[d]: counter]))
            var changes: [RecordChange] = []
            for key in keys where random.next() % 3 == 0 {
                let alive = replicas[d].records[key]?.isAlive ?? false
                let value: RecordValue = .value(.integer(Int64(random.next() % 5)))
                let name = names[Int(random.next() % 3)]
                switch random.next() % 8 {
                case 0: changes.append(alive ? .delete(key) : .insert(key, attributes: [name: value]))
                case 1: changes.append(.update(key, attributes: [name: random.next() % 4 == 0 ? nil : value]))
                default: changes.append(alive ? .update(key, attributes: [name: value]) : .insert(key, attributes: [names[0]: value].merging([name: value]) { $1 }))
                }
            }
            if changes.isEmpty { changes = [.insert(keys[Int(random.next() % 4)], attributes: [names[2]: .value(.integer(Int64(step)))])] }
            let transaction = RecordTransaction(store: try! RecordStoreName("s"), author: devices[d], version: version,
                                                clock: clocks[d].tick(now: now), changes: changes)
            made[d].append(transaction)
            all.append(transaction)
            replicas[d].receive([transaction])
        }
        return all
    }

    @Test(arguments: 1...40 as ClosedRange<UInt64>) func everyArrivalOrderEndsWithTheSameRecords(seed: UInt64) {
        let all = Self.history(seed: seed, steps: 60)
        var random = SplitMix64(seed: seed &* 7919)
        var dumps: [[RecordKey: [RecordName: RecordValue]]] = []
        for _ in 0..<6 {
            var replica = Replica()
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
