import Foundation
import Testing
import UbiqModel
@testable import UbiqWire

/// A record store's change-log file: a transaction read back exactly as saved, and a file
/// that is truncated, altered or not one a device could have saved refused with a reason.
struct RecordLogCodingTests {
    static let author = DeviceID("AUTH-ORAA")
    static func key(_ entity: String, _ id: String) -> RecordKey { RecordKey(entity: try! RecordName(entity), id: try! RecordID(id)) }
    static func name(_ raw: String) -> RecordName { try! RecordName(raw) }

    static let transaction = RecordTransaction(
        store: try! RecordStoreName("todos"), author: author, version: VersionVector([author: 3, DeviceID("OTHER"): 7]),
        clock: HybridTimestamp(wall: 1_790_000_000_000, logical: 2),
        changes: [
            .insert(key("Task", "t-1"), attributes: [name("title"): .value(.string("milk")), name("list"): .reference(key("List", "l-1")),
                                                   name("tags"): .value(.array([.string("shop"), .integer(2)]))]),
            .update(key("Task", "t-2"), attributes: [name("done"): .value(.bool(true)), name("note"): nil]),
            .delete(key("List", "l-9")),
        ])

    /// A file whose checksum is right around `wire`, as a buggy or hostile writer could make.
    static func file(_ wire: Ubiq_Wire_RecordTransaction) throws -> [UInt8] {
        RecordLogCoding.framed(try wire.serializedBytes())
    }

    static func reason(_ bytes: [UInt8]) -> String? {
        do { _ = try RecordLogCoding.decode(bytes) } catch { return error.reason }
        return nil
    }

    @Test func aTransactionIsReadBackAsSaved() throws {
        let bytes = RecordLogCoding.encode(Self.transaction)
        #expect(try RecordLogCoding.decode(bytes) == Self.transaction)
        #expect(RecordLogCoding.encode(try RecordLogCoding.decode(bytes)) == bytes)
    }

    @Test func aTruncatedOrDamagedFileIsRefused() {
        let bytes = RecordLogCoding.encode(Self.transaction)
        for length in stride(from: 0, to: bytes.count, by: 7) {
            #expect(Self.reason(Array(bytes.prefix(length))) != nil, "a file cut to \(length) bytes was read")
        }
        for offset in stride(from: 0, to: bytes.count, by: 5) {
            var damaged = bytes
            damaged[offset] ^= 0x20
            #expect(Self.reason(damaged) != nil, "a file with byte \(offset) altered was read")
        }
        var newer = bytes
        newer[8] = 2
        #expect(Self.reason(newer)?.contains("update ubiq") == true)
        #expect(Self.reason(bytes + [0])?.contains("truncated or damaged") == true)
    }

    @Test func whatNoDeviceCouldHaveSavedIsRefused() throws {
        var good = Ubiq_Wire_RecordTransaction()
        good.store = "todos"
        good.author = Self.author.rawValue
        good.version = [.with { $0.device = Self.author.rawValue; $0.value = 1 }]
        good.changes = [.with { $0.kind = .update; $0.entity = "Task"; $0.id = "t-1"; $0.attributes = [.with { $0.name = "done"; $0.propertyList = Data(PropertyListCoding.encode(.bool(true))) }] }]
        #expect(Self.reason(try Self.file(good)) == nil)
        func refused(_ change: (inout Ubiq_Wire_RecordTransaction) -> Void, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            var wire = good
            change(&wire)
            let reason = Self.reason(try Self.file(wire))
            #expect(reason?.contains(expected) == true, "\(reason ?? "read")", sourceLocation: sourceLocation)
        }
        try refused({ $0.store = "../up" }, "not a record store name")
        try refused({ $0.author = "not a device" }, "is not a device ID")
        try refused({ $0.version = [.with { $0.device = "OTHER"; $0.value = 1 }] }, "does not count itself")
        try refused({ $0.version = [] }, "version vector is empty")
        try refused({ $0.changes[0].entity = "1Task" }, "not an entity or attribute name")
        try refused({ $0.changes[0].id = "" }, "not a record ID")
        try refused({ $0.changes[0].attributes[0].propertyList = Data([0xFF]) }, "attribute done of Task/t-1")
        try refused({ $0.changes[0].attributes[0].propertyList = Data(PropertyListCoding.encode(.array([.double(.nan)]))) }, "not a finite number")
        try refused({ $0.changes[0].attributes.append($0.changes[0].attributes[0]) }, "sets attribute done of Task/t-1 twice")
        try refused({ $0.changes[0].attributes[0].value = nil }, "has no value")
        try refused({ $0.changes[0].kind = .insert; $0.changes[0].attributes[0].removed = true }, "removes an attribute")
        try refused({ $0.changes[0].kind = .delete }, "a delete of Task/t-1 sets attributes")
        try refused({ $0.changes.append($0.changes[0]) }, "changed twice")
        try refused({ $0.changes = [] }, "changes at least one record")
        try refused({ $0.changes[0].attributes[0].propertyList = Data(PropertyListCoding.encode(.data([UInt8](repeating: 1, count: 2 << 20)))) },
                    "holds more than")
    }

    @Test func aLogsPathNamesItsStoreDeviceAndCounter() throws {
        let path = try RecordLogLayout.path(store: try RecordStoreName("todos"), device: Self.author, counter: 42)
        #expect(path.rawValue == "Records/todos/AUTH-ORAA/00000000000000000042.ubiqlog")
        let parsed = try #require(RecordLogLayout.log(at: path))
        #expect(parsed.store.rawValue == "todos" && parsed.device == Self.author && parsed.counter == 42)
        for other in ["Records/todos/AUTH-ORAA/42.ubiqlog", "Records/todos/auth/00000000000000000042.ubiqlog",
                      "Records/todos/AUTH-ORAA/00000000000000000000.ubiqlog", "Documents/todos/AUTH-ORAA/00000000000000000042.ubiqlog",
                      "Records/todos/AUTH-ORAA/00000000000000000042.log", "Records/todos/AUTH-ORAA/x/00000000000000000042.ubiqlog"] {
            #expect(RecordLogLayout.log(at: try RelativePath(other)) == nil, "\(other)")
        }
    }
}
