import UbiqModel

/// Random histories of a record store for tests: three devices save transactions at what
/// each has imported so far (inserts, updates, removals of attributes, deletes of the same
/// few records, so they collide), while taking in some of each other's transactions now and
/// then; their wall clocks disagree by up to half a second either way.
public enum RecordHistories {
    /// One device's store as the model alone keeps it.
    public struct Replica: Sendable {
        public var records: [RecordKey: RecordState] = [:]
        public var imported = VersionVector.empty
        public var clocks: [RecordDot: HybridTimestamp] = [:]
        public var waiting: [RecordTransaction] = []
        public var refused = 0

        public init() {}

        public mutating func receive(_ transactions: [RecordTransaction]) {
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
        public var dump: [RecordKey: [RecordName: RecordValue]] { records.filter { $0.value.isAlive }.mapValues(\.values) }
    }

    public static let devices = [DeviceID("AAAA"), DeviceID("BBBB"), DeviceID("CCCC")]
    static let keys = (0..<4).map { try! RecordKey(entity: RecordName("Task"), id: RecordID("t\($0)")) }
    static let names = ["title", "done", "rank"].map { try! RecordName($0) }

    /// Every transaction of a history of `steps` steps, in the order they were saved.
    public static func random(seed: UInt64, steps: Int, store: RecordStoreName) -> [RecordTransaction] {
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
            for clock in replicas[d].clocks.values { clocks[d].observe(clock, now: now) }
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
                default:
                    changes.append(alive ? .update(key, attributes: [name: value])
                                         : .insert(key, attributes: [names[0]: value].merging([name: value]) { $1 }))
                }
            }
            if changes.isEmpty { changes = [.insert(keys[Int(random.next() % 4)], attributes: [names[2]: .value(.integer(Int64(step)))])] }
            let transaction = RecordTransaction(store: store, author: devices[d], version: version, clock: clocks[d].tick(now: now), changes: changes)
            made[d].append(transaction)
            all.append(transaction)
            replicas[d].receive([transaction])
        }
        return all
    }
}
