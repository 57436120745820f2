import GRDB
import UbiqModel

/// A store's records as a baseline (compaction), and a store started again from one.
extension RecordDatabase {
    /// Every record's merge state at what this store has imported, with per device the clock
    /// of its last transaction imported: the baseline this device would write.
    public func baseline(of store: RecordStoreName, author: DeviceID) throws(IndexError) -> RecordBaseline {
        try read { db in
            var records: [RecordKey: RecordState] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT entity, id FROM record") {
                let entity: String = try row.stored(Column("entity")), id: String = try row.stored(Column("id"))
                let key = try Self.stored { RecordKey(entity: try RecordName(entity), id: try RecordID(id)) }
                let state = try Self.state(of: key, in: db)
                if state.inserted != nil || !state.deletes.isEmpty || !state.attributes.isEmpty { records[key] = state }
            }
            var point: [DeviceID: UInt64] = [:]
            var clocks: [DeviceID: HybridTimestamp] = [:]
            let last = """
                SELECT device, counter, clockWall, clockLogical FROM imported AS i
                WHERE counter = (SELECT MAX(counter) FROM imported WHERE device = i.device)
                """
            for row in try Row.fetchAll(db, sql: last) {
                let device = DeviceID(try row.stored(Column("device")) as String)
                point[device] = UInt64(try row.stored(Column("counter")) as Int64)
                clocks[device] = HybridTimestamp(wall: try row.stored(Column("clockWall")),
                                                 logical: UInt32(clamping: try row.stored(Column("clockLogical")) as Int64))
            }
            return RecordBaseline(store: store, author: author, point: VersionVector(point), clocks: clocks, records: records)
        }
    }

    /// Replaces everything with `baseline`'s records, its point counted as imported (the
    /// transactions before each device's last one are in it, their clocks forgotten).
    public func adopt(_ baseline: RecordBaseline) throws(IndexError) {
        try write { db in
            try db.execute(sql: "DELETE FROM attribute; DELETE FROM record; DELETE FROM imported")
            for (key, state) in baseline.records { try Self.save(state, of: key, in: db) }
            for (device, clock) in baseline.clocks {
                try db.execute(sql: "INSERT INTO imported (device, counter, clockWall, clockLogical) VALUES (?, ?, ?, ?)",
                               arguments: [device.rawValue, Int64(baseline.point[device]), clock.wall, Int64(clock.logical)])
            }
        }
    }
}
