import Foundation
import Testing
import UbiqIndex
import UbiqModel
import UbiqTestSupport

/// A record store's local SQLite file: the merged records of the transactions imported,
/// each transaction whole, the same whatever order they came in, and still there when the
/// file is opened again; a damaged file is refused so that it can be rebuilt.
struct RecordDatabaseTests {
    let directory: TempDirectory
    init() throws { directory = try TempDirectory(prefix: "ubiq-records") }

    static let store = try! RecordStoreName("todos")
    static let (a, b) = (DeviceID("AAAA"), DeviceID("BBBB"))
    static let task = try! RecordKey(entity: RecordName("Task"), id: RecordID("t-1"))
    static func name(_ raw: String) -> RecordName { try! RecordName(raw) }
    static func transaction(_ author: DeviceID, _ version: [DeviceID: UInt64], at wall: Int64, _ changes: [RecordChange]) -> RecordTransaction {
        RecordTransaction(store: store, author: author, version: VersionVector(version), clock: HybridTimestamp(wall: wall, logical: 0), changes: changes)
    }

    @Test(arguments: [3, 11, 19] as [UInt64]) func twoFilesFedInDifferentOrdersHoldTheSameRecords(seed: UInt64) throws {
        let all = RecordHistories.random(seed: seed, steps: 80, store: Self.store)
        var random = SplitMix64(seed: seed)
        var dumps: [String] = []
        for copy in 0..<2 {
            let path = directory.appending("store-\(copy).sqlite")
            var left = all
            left.shuffle(using: &random)
            do {
                let database = try RecordDatabase(path: path)
                var waiting: [RecordTransaction] = []
                while !left.isEmpty {
                    let count = Int(random.next() % UInt64(min(left.count, 6))) + 1
                    let (_, order) = try database.importTransactions(waiting + Array(left.prefix(count)))
                    waiting = order.waiting
                    #expect(order.refused.isEmpty)
                    left.removeFirst(count)
                }
                #expect(waiting.isEmpty)
            }
            // Opened again: the same records, and every transaction known as imported.
            let reopened = try RecordDatabase(path: path)
            #expect(try reopened.imported() == all.reduce(VersionVector.empty) { $0.merged(with: VersionVector([$1.author: $1.counter])) })
            dumps.append("\(try reopened.allRecords().map { ($0.key, $0.values.sorted { $0.key < $1.key }) })")
        }
        var replica = RecordHistories.Replica()
        replica.receive(all)
        let expected = replica.dump.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sorted { $0.key < $1.key }) }
        #expect(dumps[0] == dumps[1] && dumps[0] == "\(expected)")
    }

    @Test func anImportSaysWhatChangedAndATransactionCountsOnce() throws {
        let database = try RecordDatabase(path: directory.appending("store.sqlite"))
        let insert = Self.transaction(Self.a, [Self.a: 1], at: 10, [.insert(Self.task, attributes: [Self.name("title"): .value(.string("milk"))])])
        let onA = Self.transaction(Self.a, [Self.a: 2], at: 30, [.update(Self.task, attributes: [Self.name("title"): .value(.string("oat milk"))])])
        let onB = Self.transaction(Self.b, [Self.a: 1, Self.b: 1], at: 20,
                                   [.update(Self.task, attributes: [Self.name("title"): .value(.string("soy milk"))])])
        let first = try database.importTransactions([onA, insert, onB])
        #expect(first.summary.inserted == [Self.task] && first.summary.updated.isEmpty)
        #expect(first.summary.conflicts.map(\.lostBy) == [onB.dot])
        #expect(try database.records(of: Self.name("Task")).map(\.values) == [[Self.name("title"): .value(.string("oat milk"))]])
        #expect(try database.apply(onA).isEmpty)
        #expect(try database.clock(of: onB.dot) == onB.clock && database.clock(of: RecordDot(device: Self.b, counter: 2)) == nil)

        let delete = Self.transaction(Self.b, [Self.a: 2, Self.b: 2], at: 40, [.delete(Self.task)])
        #expect(try database.importTransactions([delete]).summary.deleted == [Self.task])
        #expect(try database.records(of: Self.name("Task")).isEmpty && database.state(of: Self.task)?.deletes == [delete.dot])
    }

    @Test func aDamagedFileIsRefused() throws {
        let path = directory.appending("damaged.sqlite")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect { try RecordDatabase(path: path) } throws: { ($0 as? IndexError)?.code == .corrupt }
    }
}
