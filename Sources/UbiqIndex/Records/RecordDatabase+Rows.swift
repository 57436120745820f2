import Foundation
import GRDB
import UbiqModel

/// How a record's merge state is kept in the `record` and `attribute` rows.
extension RecordDatabase {
    static func exists(_ key: RecordKey, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM record WHERE entity = ? AND id = ?", arguments: [key.entity.rawValue, key.id.rawValue]) ?? false
    }

    static func state(of key: RecordKey, in db: Database) throws -> RecordState {
        var state = RecordState()
        let arguments: StatementArguments = [key.entity.rawValue, key.id.rawValue]
        if let row = try Row.fetchOne(db, sql: "SELECT * FROM record WHERE entity = ? AND id = ?", arguments: arguments) {
            if let device: String = try row.stored(Column("insertedDevice")) {
                state.inserted = RecordRegister(value: nil, clock: try clock(row, "insertedWall", "insertedLogical"),
                                                dot: RecordDot(device: DeviceID(device), counter: try counter(row, "insertedCounter")))
            }
            state.deletes = try dots(try row.stored(Column("deletes")))
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM attribute WHERE entity = ? AND id = ?", arguments: arguments) {
            let (name, register) = try self.register(row, of: key)
            state.attributes[name] = register
        }
        return state
    }

    /// One `attribute` row of the record `key`: the attribute's name and its register.
    static func register(_ row: Row, of key: RecordKey) throws -> (RecordName, RecordRegister) {
        let name = try stored { try RecordName(try row.stored(Column("name")) as String) }
        let value: RecordValue?
        switch try row.stored(Column("kind")) as Int64 {
        case 0: value = nil
        case 1:
            let bytes: Data = try row.stored(Column("value"))
            do { value = .value(try PropertyListCoding.decode(bytes)) } catch { throw IndexError(.corrupt, "attribute \(name) of \(key): \(error)") }
        case 2:
            let entity: String = try row.stored(Column("refEntity")), id: String = try row.stored(Column("refID"))
            value = .reference(try stored { RecordKey(entity: try RecordName(entity), id: try RecordID(id)) })
        case let kind: throw IndexError(.corrupt, "attribute \(name) of \(key) is of unknown kind \(kind)")
        }
        return (name, RecordRegister(value: value, clock: try clock(row, "clockWall", "clockLogical"),
                                     dot: RecordDot(device: DeviceID(try row.stored(Column("device"))), counter: try counter(row, "counter"))))
    }

    static func save(_ state: RecordState, of key: RecordKey, in db: Database) throws {
        let entity = key.entity.rawValue, id = key.id.rawValue
        let inserted = state.inserted
        try db.execute(sql: """
            INSERT OR REPLACE INTO record (entity, id, insertedWall, insertedLogical, insertedDevice, insertedCounter, deletes)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [entity, id, inserted?.clock.wall, inserted.map { Int64($0.clock.logical) }, inserted?.dot.device.rawValue,
                             inserted.map { Int64($0.dot.counter) }, state.deletes.map { "\($0.device):\($0.counter)" }.joined(separator: " ")])
        try db.execute(sql: "DELETE FROM attribute WHERE entity = ? AND id = ?", arguments: [entity, id])
        for (name, register) in state.attributes {
            var kind: Int64 = 0
            var value: Data?, refEntity: String?, refID: String?
            switch register.value {
            case .value(let plist): (kind, value) = (1, Data(PropertyListCoding.encode(plist)))
            case .reference(let target): (kind, refEntity, refID) = (2, target.entity.rawValue, target.id.rawValue)
            case nil: break
            }
            try db.execute(sql: """
                INSERT INTO attribute (entity, id, name, kind, value, refEntity, refID, clockWall, clockLogical, device, counter)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [entity, id, name.rawValue, kind, value, refEntity, refID, register.clock.wall, Int64(register.clock.logical),
                                 register.dot.device.rawValue, Int64(register.dot.counter)])
        }
    }

    private static func clock(_ row: Row, _ wall: String, _ logical: String) throws -> HybridTimestamp {
        HybridTimestamp(wall: try row.stored(Column(wall)), logical: UInt32(clamping: try row.stored(Column(logical)) as Int64))
    }

    private static func counter(_ row: Row, _ column: String) throws -> UInt64 {
        let value: Int64 = try row.stored(Column(column))
        guard value > 0 else { throw IndexError(.corrupt, "record store: counter \(value) in \(column)") }
        return UInt64(value)
    }

    private static func dots(_ text: String) throws -> [RecordDot] {
        try text.split(separator: " ").map { part in
            guard let colon = part.lastIndex(of: ":"), let counter = UInt64(part[part.index(after: colon)...]) else {
                throw IndexError(.corrupt, "record store: '\(part)' is not a delete's dot")
            }
            return RecordDot(device: DeviceID(String(part[..<colon])), counter: counter)
        }
    }
}
