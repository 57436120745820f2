import Foundation
import Logging
import Testing
@testable import UbiqAgent
import UbiqFileSystem
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTestSupport
import UbiqWire

/// Record stores of two devices on real files: each saves while they are apart, the logs
/// are copied across as the document path would, and both end with the same records; a
/// damaged or misplaced log is refused and reported while the rest import; a lost local
/// store is rebuilt from the logs.
struct RecordStoreTests {
    /// One device: its container (with its logs) and its local store file.
    struct Device {
        let id: DeviceID
        let layout: ContainerLayout
        let databasePath: String
        let store: RecordStore

        init(_ id: DeviceID, in directory: TempDirectory) throws {
            self.id = id
            layout = ContainerLayout(root: directory.appending("\(id)/container"))
            try layout.create()
            databasePath = directory.appending("\(id)/todos.sqlite")
            store = try Self.open(id, layout: layout, databasePath: databasePath)
        }

        static func open(_ id: DeviceID, layout: ContainerLayout, databasePath: String, compactAfter: Int = 1000,
                         isRemoved: @escaping @Sendable (DeviceID) -> Bool = { _ in false }) throws -> RecordStore {
            let files = RecordLogFilesOnDisk(files: SafeFileSystem(layout: layout, logger: Logger(label: "test")))
            return RecordStore(name: RecordStoreTests.storeName, device: id, database: try RecordDatabase(path: databasePath), files: files,
                               wallMilliseconds: { Int64(Date().timeIntervalSince1970 * 1000) }, compactAfter: compactAfter,
                               isRemoved: isRemoved, logger: Logger(label: "test"))
        }

        func logs() throws -> [RelativePath] {
            let root = layout.root + "/Records/todos"
            return try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".ubiqlog") }.sorted()
                .map { try RelativePath("Records/todos/" + $0) }
        }

        /// Copies `other`'s logs that this device lacks into its container, as sync would;
        /// returns their paths.
        func copyLogs(from other: Device) throws -> [RelativePath] {
            var copied: [RelativePath] = []
            for path in try other.logs() where !FileManager.default.fileExists(atPath: layout.root + "/" + path.rawValue) {
                let target = layout.root + "/" + path.rawValue
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: other.layout.root + "/" + path.rawValue, toPath: target)
                copied.append(path)
            }
            return copied
        }
    }

    static let storeName = try! RecordStoreName("todos")
    static func key(_ id: String) -> RecordKey { RecordKey(entity: try! RecordName("Task"), id: try! RecordID(id)) }
    static func name(_ raw: String) -> RecordName { try! RecordName(raw) }
    static func text(_ raw: String) -> RecordValue { .value(.string(raw)) }

    let directory: TempDirectory
    let a: Device, b: Device
    init() throws {
        directory = try TempDirectory(prefix: "ubiq-recordstore")
        a = try Device(DeviceID("AAAA"), in: directory)
        b = try Device(DeviceID("BBBB"), in: directory)
    }

    func records(_ device: Device) async throws -> [RecordKey: [RecordName: RecordValue]] {
        Dictionary(uniqueKeysWithValues: try await device.store.fetch(RecordQuery(entity: Self.name("Task"))).map { ($0.key, $0.values) })
    }

    @Test func transactionsSavedApartMergeTheSameOnBothDevices() async throws {
        _ = try await a.store.save([.insert(Self.key("milk"), attributes: [Self.name("title"): Self.text("milk"), Self.name("rank"): .value(.integer(1))]),
                                   .insert(Self.key("bread"), attributes: [Self.name("title"): Self.text("bread")])])
        await b.store.importLogs(try b.copyLogs(from: a))
        // Apart: A renames milk and deletes bread; B ranks milk and edits bread.
        _ = try await a.store.save([.update(Self.key("milk"), attributes: [Self.name("title"): Self.text("oat milk")])])
        _ = try await a.store.save([.delete(Self.key("bread"))])
        _ = try await b.store.save([.update(Self.key("milk"), attributes: [Self.name("rank"): .value(.integer(5))]),
                                   .update(Self.key("bread"), attributes: [Self.name("title"): Self.text("rye bread")])])
        let heard = b.store.didImport()
        let fromA = await b.store.importLogs(try b.copyLogs(from: a))
        let fromB = await a.store.importLogs(try a.copyLogs(from: b))

        let expected = [Self.key("milk"): [Self.name("title"): Self.text("oat milk"), Self.name("rank"): .value(.integer(5))]]
        let (onA, onB) = (try await records(a), try await records(b))
        #expect(onA == expected && onB == expected)
        // Delete wins over B's concurrent edit, on both sides, and B is told.
        #expect(fromA.updated == [Self.key("milk")] && fromA.deleted == [Self.key("bread")])
        #expect(fromA.conflicts.map(\.kind) == [.deleted] && fromB.conflicts.map(\.kind) == [.deleted])
        var iterator = heard.makeAsyncIterator()
        #expect(await iterator.next() == fromA)
        let refusedOnA = await a.store.refused, refusedOnB = await b.store.refused
        #expect(refusedOnA.isEmpty && refusedOnB.isEmpty)
        // A record that is not there cannot be updated, nor one that is inserted again.
        await #expect(throws: RecordError.self) { try await a.store.save([.update(Self.key("bread"), attributes: [:])]) }
        await #expect(throws: RecordError.self) { try await a.store.save([.insert(Self.key("milk"), attributes: [:])]) }
    }

    @Test func aDamagedOrMisplacedLogIsRefusedAndTheRestImport() async throws {
        _ = try await a.store.save([.insert(Self.key("one"), attributes: [Self.name("n"): .value(.integer(1))])])
        _ = try await a.store.save([.insert(Self.key("two"), attributes: [Self.name("n"): .value(.integer(2))])])
        let c = try Device(DeviceID("CCCC"), in: directory)
        _ = try await c.store.save([.insert(Self.key("three"), attributes: [Self.name("n"): .value(.integer(3))])])
        let copied = try b.copyLogs(from: a) + b.copyLogs(from: c)
        // A's second log arrives cut short; C's log is also put in A's folder as counter 3.
        let second = b.layout.root + "/" + copied[1].rawValue
        let bytes = try Data(contentsOf: URL(fileURLWithPath: second))
        try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: second))
        let misplaced = try RelativePath("Records/todos/AAAA/00000000000000000003.ubiqlog")
        try FileManager.default.copyItem(atPath: b.layout.root + "/" + copied[2].rawValue, toPath: b.layout.root + "/" + misplaced.rawValue)

        let summary = await b.store.importLogs(copied + [misplaced])
        #expect(Set(summary.inserted) == [Self.key("one"), Self.key("three")])
        let refused = await b.store.refused
        #expect(Set(refused.keys) == [copied[1], misplaced], "\(refused)")
        #expect(refused[copied[1]]?.contains("truncated") == true && refused[misplaced]?.contains("not what its path names") == true)
    }

    @Test func aLostLocalStoreIsRebuiltFromTheLogs() async throws {
        for n in 0..<20 {
            _ = try await a.store.save([.insert(Self.key("t\(n)"), attributes: [Self.name("n"): .value(.integer(Int64(n)))])])
            if n % 3 == 0 { _ = try await a.store.save([.delete(Self.key("t\(n)"))]) }
        }
        let before = try await records(a)
        try FileManager.default.removeItem(atPath: a.databasePath)
        let rebuilt = try Device.open(a.id, layout: a.layout, databasePath: a.databasePath)
        let empty = try await rebuilt.fetch(RecordQuery(entity: Self.name("Task")))
        #expect(empty.isEmpty)
        let summary = try await rebuilt.catchUp()
        #expect(summary.inserted.count == 13 && before.count == 13)
        let after = try await rebuilt.fetch(RecordQuery(entity: Self.name("Task")))
        #expect(Dictionary(uniqueKeysWithValues: after.map { ($0.key, $0.values) }) == before)
        // The next save follows on from the logs, never over one.
        let next = try await rebuilt.save([.delete(Self.key("t1"))])
        #expect(next.counter == 28)
    }

    @Test func aStoreMadeAnewWhileThisDeviceWasAwayIsRebuiltFromItsNewLogs() async throws {
        _ = try await a.store.save([.insert(Self.key("old"), attributes: [Self.name("n"): .value(.integer(1))])])
        await b.store.importLogs(try b.copyLogs(from: a))
        // A deletes the store (logs and local store) and saves anew: its counter starts at 1
        // again, so its first new log has the path of the one B imported.
        try FileManager.default.removeItem(atPath: a.layout.root + "/Records")
        try FileManager.default.removeItem(atPath: a.databasePath)
        let anew = try Device.open(a.id, layout: a.layout, databasePath: a.databasePath)
        _ = try await anew.save([.insert(Self.key("new"), attributes: [Self.name("n"): .value(.integer(2))])])
        let replaced = b.layout.root + "/Records/todos/AAAA"
        try FileManager.default.removeItem(atPath: replaced)
        let heard = b.store.didImport()
        let summary = await b.store.importLogs(try b.copyLogs(from: a))
        #expect(try await records(b) == [Self.key("new"): [Self.name("n"): .value(.integer(2))]])
        // Required, so a failed rebuild ends here rather than waiting for notices never sent.
        try #require(summary.inserted == [Self.key("new")] && summary.deleted == [Self.key("old")])
        // The subscriber hears the old record go before the new one comes.
        var iterator = heard.makeAsyncIterator()
        #expect(await iterator.next()?.deleted == [Self.key("old")])
        #expect(await iterator.next()?.inserted == [Self.key("new")])
    }

    @Test func aDeviceBehindHoldsCompactionBackUntilItIsRemovedFromTheAccount() async throws {
        // B saved once and then went away; A, the smaller ID, saved on.
        _ = try await b.store.save([.insert(Self.key("b"), attributes: [Self.name("n"): .value(.integer(0))])])
        await a.store.importLogs(try a.copyLogs(from: b))
        for n in 1...3 { _ = try await a.store.save([.insert(Self.key("a\(n)"), attributes: [Self.name("n"): .value(.integer(Int64(n)))])]) }
        let kept = try Device.open(a.id, layout: a.layout, databasePath: a.databasePath, compactAfter: 2)
        try await kept.catchUp()
        let heldBack = await kept.maintain()
        #expect(heldBack.map(\.rawValue) == ["Records/todos/AAAA/imported.ubiqack"])
        #expect(try a.logs().count == 4)

        let removed = B.removed
        let compacting = try Device.open(a.id, layout: a.layout, databasePath: a.databasePath, compactAfter: 2, isRemoved: { $0 == removed })
        try await compacting.catchUp()
        let changed = await compacting.maintain()
        #expect(changed.contains { $0.rawValue == "Records/todos/AAAA/00000000000000000004.ubiqbase" }, "\(changed)")
        #expect(try a.logs().isEmpty)
        // A device joining now starts from the baseline alone.
        let c = try Device(DeviceID("CCCC"), in: directory)
        let baseline = "Records/todos/AAAA/00000000000000000004.ubiqbase"
        try FileManager.default.createDirectory(atPath: c.layout.root + "/Records/todos/AAAA", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: a.layout.root + "/" + baseline, toPath: c.layout.root + "/" + baseline)
        let summary = try await c.store.catchUp()
        #expect(Set(summary.inserted) == [Self.key("b"), Self.key("a1"), Self.key("a2"), Self.key("a3")])
        #expect(try await records(c) == records(a))
    }

    enum B { static let removed = DeviceID("BBBB") }

    @Test(arguments: [7, 29, 53] as [UInt64]) func logsArrivingInAnyOrderAndBatchImportAsTheModelDoes(seed: UInt64) async throws {
        let all = RecordHistories.random(seed: seed, steps: 120, store: Self.storeName)
        let reader = try Device(DeviceID("ZZZZ"), in: directory)
        var paths: [RelativePath] = []
        for transaction in all {
            let path = try RecordLogLayout.path(store: Self.storeName, device: transaction.author, counter: transaction.counter)
            let target = reader.layout.root + "/" + path.rawValue
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(RecordLogCoding.encode(transaction)).write(to: URL(fileURLWithPath: target))
            paths.append(path)
        }
        var random = SplitMix64(seed: seed)
        paths.shuffle(using: &random)
        var heard = RecordImportSummary()
        var alive: Set<RecordKey> = []
        while !paths.isEmpty {
            let count = Int(random.next() % 5) + 1
            let step = await reader.store.importLogs(Array(paths.prefix(count)))
            heard.merge(step)
            paths.removeFirst(min(count, paths.count))
            let now = Set(try await records(reader).keys)
            // Each notice alone takes a subscriber from the records before it to those after.
            #expect(now == alive.union(step.inserted).subtracting(step.deleted), "before \(alive.sorted()), after \(now.sorted())")
            #expect(Set(step.inserted).isDisjoint(with: alive) && Set(step.deleted).isSubset(of: alive))
            alive = now
        }
        var model = RecordHistories.Replica()
        model.receive(all)
        let progress = try await reader.store.progress()
        #expect(progress.waiting == 0 && progress.refused.isEmpty && model.refused == 0)
        #expect(try await records(reader) == model.dump)
        #expect(Set(heard.inserted) == Set(model.dump.keys) && heard.deleted.isEmpty)
    }
}
