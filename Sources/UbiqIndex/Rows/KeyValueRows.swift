import Foundation
import GRDB
import UbiqModel

/// A row of the `kvstore` table: a key-value store's local row ID, index ID, sequence and
/// the last timestamp its clock gave or saw.
struct KeyValueStoreRow: FetchableRecord {
    enum Columns: String, ColumnExpression {
        case id, identifier, indexID, sequence, clockWall, clockLogical, account
    }

    var id: Int64
    var indexID: Int64
    var sequence: Int64
    var clock: HybridTimestamp

    init(id: Int64, indexID: Int64, sequence: Int64, clock: HybridTimestamp) {
        self.id = id
        self.indexID = indexID
        self.sequence = sequence
        self.clock = clock
    }

    init(row: Row) throws {
        id = try row.stored(Columns.id)
        indexID = try row.stored(Columns.indexID)
        sequence = try row.stored(Columns.sequence)
        clock = HybridTimestamp(wall: try row.stored(Columns.clockWall), logical: UInt32(clamping: try row.stored(Columns.clockLogical) as Int64))
    }
}

/// A row of the `kventry` table: one key of a store with its local sequence.
struct KeyValueEntryRow: FetchableRecord {
    enum Columns: String, ColumnExpression {
        case store, key, value, version, valueVersion, hlcWall, hlcLogical, modifiedBy, sequence
    }

    var indexed: IndexedKeyValue

    init(row: Row) throws {
        let key: String = try row.stored(Columns.key)
        let value: Data? = try row.stored(Columns.value)
        let valueVersion: Data? = try row.stored(Columns.valueVersion)
        let decoded: PropertyListValue?
        do { decoded = try value.map { try PropertyListCoding.decode($0) } } catch {
            throw IndexError(.corrupt, "key '\(key)': \(error)")
        }
        let entry = KeyValueEntry(
            key: key, value: decoded,
            version: try IndexBinary.decodeVersion(row.stored(Columns.version)),
            valueVersion: try valueVersion.map { try IndexBinary.decodeVersion($0) },
            timestamp: HybridTimestamp(wall: try row.stored(Columns.hlcWall), logical: UInt32(clamping: try row.stored(Columns.hlcLogical) as Int64)),
            modifiedBy: DeviceID(try row.stored(Columns.modifiedBy) as String))
        indexed = IndexedKeyValue(entry: entry, sequence: try row.stored(Columns.sequence))
    }
}
