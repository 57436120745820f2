import Foundation
import Testing
import UbiqIndex
import UbiqModel
import UbiqTestSupport
import UbiqWire

/// Baselines on real SQLite files: a store started from a baseline (written to bytes and
/// read back) and then fed the transactions after it holds the same records as one that
/// imported every transaction, concurrent ones included; a baseline file that is damaged
/// or impossible is refused.
struct RecordBaselineTests {
    let directory: TempDirectory
    init() throws { directory = try TempDirectory(prefix: "ubiq-baseline") }

    static let store = try! RecordStoreName("todos")

    static func dump(_ database: RecordDatabase) throws -> String {
        "\(try database.allRecords().map { ($0.key, $0.values.sorted { $0.key < $1.key }) })"
    }

    @Test(arguments: [5, 23, 41] as [UInt64]) func aStoreStartedFromABaselineEndsAsOneThatImportedEverything(seed: UInt64) throws {
        let all = RecordHistories.random(seed: seed, steps: 80, store: Self.store)
        // Made in causal order, so every prefix is a point every device could have reached.
        let cut = all.count / 2
        let whole = try RecordDatabase(path: directory.appending("whole.sqlite"))
        _ = try whole.importTransactions(all)
        let first = try RecordDatabase(path: directory.appending("first.sqlite"))
        let (_, order) = try first.importTransactions(Array(all.prefix(cut)))
        #expect(order.waiting.isEmpty && order.refused.isEmpty)

        let bytes = RecordBaselineCoding.encode(try first.baseline(of: Self.store, author: DeviceID("AAAA")))
        let baseline = try RecordBaselineCoding.decode(bytes)
        #expect(RecordBaselineCoding.encode(baseline) == bytes)
        let started = try RecordDatabase(path: directory.appending("started.sqlite"))
        try started.adopt(baseline)
        #expect(try started.imported() == first.imported())
        #expect(try Self.dump(started) == Self.dump(first))
        var rest = Array(all.dropFirst(cut))
        var random = SplitMix64(seed: seed)
        rest.shuffle(using: &random)
        let (_, after) = try started.importTransactions(rest)
        #expect(after.waiting.isEmpty && after.refused.isEmpty)
        #expect(try Self.dump(started) == Self.dump(whole))
    }

    @Test func aDamagedOrImpossibleBaselineIsRefused() throws {
        let author = DeviceID("AAAA")
        let key = RecordKey(entity: try RecordName("Task"), id: try RecordID("t-1"))
        let clock = HybridTimestamp(wall: 1_790_000_000_000, logical: 0)
        var state = RecordState()
        state.inserted = RecordRegister(value: nil, clock: clock, dot: RecordDot(device: author, counter: 2))
        let good = RecordBaseline(store: Self.store, author: author, point: VersionVector([author: 2]), clocks: [author: clock], records: [key: state])
        let bytes = RecordBaselineCoding.encode(good)
        #expect(try RecordBaselineCoding.decode(bytes) == good)
        func reason(_ bytes: [UInt8]) -> String? {
            do { _ = try RecordBaselineCoding.decode(bytes) } catch { return error.reason }
            return nil
        }
        var damaged = bytes
        damaged[damaged.count - 3] ^= 1
        #expect(reason(damaged)?.contains("checksum") == true)
        #expect(reason(Array(bytes.dropLast()))?.contains("truncated") == true)
        var beyond = good
        beyond.records[key]?.inserted?.dot.counter = 3
        #expect(reason(RecordBaselineCoding.encode(beyond))?.contains("beyond its point") == true)
        var unclocked = good
        unclocked.clocks = [:]
        #expect(reason(RecordBaselineCoding.encode(unclocked)) != nil)
        #expect(reason(RecordLogCoding.framed([1, 2, 3])) == "not a record baseline")
    }
}
