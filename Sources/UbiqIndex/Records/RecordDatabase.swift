import Foundation
import GRDB
import UbiqModel

/// One record store's local SQLite file: the records as merged from every transaction this
/// device imported, and which transactions those were (with their clocks, for
/// ``RecordImportOrder``). It is a cache of the change logs, never synced: lost or damaged,
/// it is rebuilt from them. Each transaction is applied in one SQLite transaction, so the
/// store is never half-applied.
public struct RecordDatabase: Sendable {
    let pool: DatabasePool

    /// Opens (creating, owner-only) the store at `path`; `.corrupt` where the file is not
    /// one, so the caller can move it away and rebuild it from the logs.
    public init(path: String) throws(IndexError) {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            try pool.read { db in
                guard try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" else { throw IndexError(.corrupt, "quick_check failed") }
            }
        } catch {
            throw IndexError(.corrupt, "the record store at \(path) cannot be read (\(error)); it is rebuilt from its change logs")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // The primary keys are the index on entity and ID that fetches use.
            try db.execute(sql: """
                CREATE TABLE record (
                    entity TEXT NOT NULL, id TEXT NOT NULL,
                    insertedWall INTEGER, insertedLogical INTEGER, insertedDevice TEXT, insertedCounter INTEGER,
                    deletes TEXT NOT NULL,
                    PRIMARY KEY (entity, id)) WITHOUT ROWID;
                CREATE TABLE attribute (
                    entity TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL,
                    kind INTEGER NOT NULL, value BLOB, refEntity TEXT, refID TEXT,
                    clockWall INTEGER NOT NULL, clockLogical INTEGER NOT NULL, device TEXT NOT NULL, counter INTEGER NOT NULL,
                    PRIMARY KEY (entity, id, name)) WITHOUT ROWID;
                CREATE TABLE imported (
                    device TEXT NOT NULL, counter INTEGER NOT NULL, clockWall INTEGER NOT NULL, clockLogical INTEGER NOT NULL,
                    PRIMARY KEY (device, counter)) WITHOUT ROWID;
                """)
        }
        return migrator
    }

    func read<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do { return try pool.read(body) } catch { throw Self.failure(error) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(IndexError) -> T {
        do { return try pool.write(body) } catch { throw Self.failure(error) }
    }

    private static func failure(_ error: any Error) -> IndexError {
        (error as? IndexError) ?? IndexError(.database, "record store: \(error)")
    }

    /// Per device, the last of its transactions imported (all before it are too).
    public func imported() throws(IndexError) -> VersionVector {
        try read { db in
            var counters: [DeviceID: UInt64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT device, MAX(counter) AS counter FROM imported GROUP BY device") {
                counters[DeviceID(try row.stored(Column("device")))] = UInt64(try row.stored(Column("counter")) as Int64)
            }
            return VersionVector(counters)
        }
    }

    /// The clock of an imported transaction; nil where it is not imported.
    public func clock(of dot: RecordDot) throws(IndexError) -> HybridTimestamp? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT clockWall, clockLogical FROM imported WHERE device = ? AND counter = ?",
                             arguments: [dot.device.rawValue, Int64(dot.counter)]).map { row in
                HybridTimestamp(wall: try row.stored(Column("clockWall")), logical: UInt32(clamping: try row.stored(Column("clockLogical")) as Int64))
            }
        }
    }

    /// The latest clock of any imported transaction (every other one is earlier, the order
    /// being causal); nil where none is.
    public func latestClock() throws(IndexError) -> HybridTimestamp? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT clockWall, clockLogical FROM imported ORDER BY clockWall DESC, clockLogical DESC LIMIT 1").map { row in
                HybridTimestamp(wall: try row.stored(Column("clockWall")), logical: UInt32(clamping: try row.stored(Column("clockLogical")) as Int64))
            }
        }
    }

    /// The live records of `entity`, by ID.
    public func records(of entity: RecordName) throws(IndexError) -> [(key: RecordKey, values: [RecordName: RecordValue])] {
        // Two statements for the whole entity, not two a record.
        try read { db in
            let ids = try String.fetchAll(db, sql: "SELECT id FROM record WHERE entity = ? AND insertedDevice IS NOT NULL ORDER BY id",
                                          arguments: [entity.rawValue])
            var values = Dictionary(uniqueKeysWithValues: ids.map { ($0, [RecordName: RecordValue]()) })
            for row in try Row.fetchAll(db, sql: "SELECT * FROM attribute WHERE entity = ? AND kind != 0", arguments: [entity.rawValue]) {
                let id: String = try row.stored(Column("id"))
                guard values[id] != nil else { continue }
                let (name, register) = try Self.register(row, of: RecordKey(entity: entity, id: try Self.stored { try RecordID(id) }))
                values[id]?[name] = register.value
            }
            return try ids.map { id in (RecordKey(entity: entity, id: try Self.stored { try RecordID(id) }), values[id] ?? [:]) }
        }
    }

    /// Every live record, in key order: what two devices compare to say they agree.
    public func allRecords() throws(IndexError) -> [(key: RecordKey, values: [RecordName: RecordValue])] {
        let entities = try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT entity FROM record ORDER BY entity") }
        var all: [(key: RecordKey, values: [RecordName: RecordValue])] = []
        for entity in entities { all += try records(of: try Self.stored { try RecordName(entity) }) }
        return all
    }

    /// The merge state of one record; nil where no transaction touched it.
    public func state(of key: RecordKey) throws(IndexError) -> RecordState? {
        try read { db in try Self.exists(key, in: db) ? try Self.state(of: key, in: db) : nil }
    }

    /// A name or ID read back from the file: one that is not well formed is a damaged store.
    static func stored<T>(_ make: () throws -> T) throws(IndexError) -> T {
        do { return try make() } catch let error as UbiqModel.RecordError {
            throw IndexError(.corrupt, "record store: \(error.reason)")
        } catch {
            throw (error as? IndexError) ?? IndexError(.database, "record store: \(error)")
        }
    }
}
