import Foundation
import GRDB
import UbiqModel

/// A key-value entry as this device holds it, with its local sequence number.
public struct IndexedKeyValue: Sendable, Equatable {
    public var entry: KeyValueEntry
    public var sequence: Int64
}

/// This device's copy of one key-value store: its index ID and sequence (as for a
/// container) and the last timestamp its clock gave or saw, so the clock never runs
/// backwards across restarts.
public struct KeyValueStoreState: Sendable, Equatable {
    public var indexID: UInt64
    public var sequence: Int64
    public var clock: HybridTimestamp
}

/// Key-value stores in the index: entries keyed by (store, key), each change with the
/// store's next sequence number, so peers are sent what they lack exactly as for items.
extension SyncIndex {
    public func keyValueState(_ store: KeyValueStoreID) throws -> KeyValueStoreState {
        try write { db in
            let row = try kvStoreRow(db, store)
            return KeyValueStoreState(indexID: UInt64(bitPattern: row.indexID), sequence: row.sequence, clock: row.clock)
        }
    }

    public func keyValueEntry(_ store: KeyValueStoreID, _ key: String) throws -> IndexedKeyValue? {
        try read { db in
            guard let id = try kvStoreID(db, store) else { return nil }
            return try KeyValueEntryRow.fetchOne(db, cached: "SELECT * FROM kventry WHERE store = ? AND key = ?", arguments: [id, key])?
                .indexed
        }
    }

    /// Every entry of the store, tombstones included, by key.
    public func keyValueEntries(_ store: KeyValueStoreID) throws -> [IndexedKeyValue] {
        try read { db in
            guard let id = try kvStoreID(db, store) else { return [] }
            return try KeyValueEntryRow.fetchAll(db, cached: "SELECT * FROM kventry WHERE store = ? ORDER BY key", arguments: [id])
                .map(\.indexed)
        }
    }

    /// Entries whose sequence is above `sequence`, in sequence order.
    public func keyValueEntries(_ store: KeyValueStoreID, after sequence: Int64, limit: Int) throws -> [IndexedKeyValue] {
        try read { db in
            guard let id = try kvStoreID(db, store) else { return [] }
            return try KeyValueEntryRow.fetchAll(db, cached: "SELECT * FROM kventry WHERE store = ? AND sequence > ? ORDER BY sequence LIMIT ?",
                                                 arguments: [id, sequence, limit]).map(\.indexed)
        }
    }

    /// Writes entries, each with the store's next sequence, the clock, and (for entries
    /// learned from a peer) how far this device has read that peer's store, in one
    /// transaction. Returns the store's new sequence.
    @discardableResult
    public func commitKeyValues(
        _ store: KeyValueStoreID, _ entries: [KeyValueEntry], clock: HybridTimestamp, from peer: (DeviceID, PeerIndexState)? = nil
    ) throws -> Int64 {
        try write { db in
            var row = try kvStoreRow(db, store)
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO kventry (store, key, value, version, valueVersion, hlcWall, hlcLogical, modifiedBy, sequence)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for entry in entries {
                row.sequence += 1
                try insert.execute(arguments: [
                    row.id, entry.key, entry.value.map { Data(PropertyListCoding.encode($0)) },
                    IndexBinary.encode(entry.version),
                    entry.valueVersion == entry.version ? nil : IndexBinary.encode(entry.valueVersion), entry.timestamp.wall, Int64(entry.timestamp.logical),
                    entry.modifiedBy.rawValue, row.sequence,
                ])
            }
            let clock = max(clock, row.clock)
            try db.execute(cached: "UPDATE kvstore SET sequence = ?, clockWall = ?, clockLogical = ? WHERE id = ?",
                           arguments: [row.sequence, clock.wall, Int64(clock.logical), row.id])
            if let (device, state) = peer {
                try db.execute(cached: "INSERT OR REPLACE INTO kvpeer (device, store, indexID, maxSequence) VALUES (?, ?, ?, ?)",
                               arguments: [device.rawValue, row.id, Int64(bitPattern: state.indexID), state.maxSequence])
            }
            return row.sequence
        }
    }

    public func keyValuePeerState(_ peer: DeviceID, _ store: KeyValueStoreID) throws -> PeerIndexState? {
        try read { db in
            guard let id = try kvStoreID(db, store) else { return nil }
            return try PeerStateRow.fetchOne(db, cached: "SELECT indexID, maxSequence FROM kvpeer WHERE device = ? AND store = ?",
                                             arguments: [peer.rawValue, id])?.state
        }
    }

    /// Whether this device has ever taken in anything of the store from a peer (the first
    /// time it does is the store's initial sync).
    public func keyValueHasSynced(_ store: KeyValueStoreID) throws -> Bool {
        try read { db in
            guard let id = try kvStoreID(db, store) else { return false }
            return try Bool.fetchOne(db, cached: "SELECT EXISTS (SELECT 1 FROM kvpeer WHERE store = ?)", arguments: [id]) ?? false
        }
    }

    /// Binds the store to the account `token`. If it held another account's entries (the
    /// device left one account and joined another), they are dropped with the peers' state
    /// and the store gets a new index ID; returns the keys that were dropped.
    public func bindKeyValueStore(_ store: KeyValueStoreID, toAccount token: String) throws -> [String]? {
        try write { db in
            let row = try kvStoreRow(db, store)
            let bound = try String.fetchOne(db, cached: "SELECT account FROM kvstore WHERE id = ?", arguments: [row.id])
            if bound == token { return nil }
            try db.execute(cached: "UPDATE kvstore SET account = ? WHERE id = ?", arguments: [token, row.id])
            guard bound != nil else { return nil }
            let keys = try String.fetchAll(db, cached: "SELECT key FROM kventry WHERE store = ? AND value IS NOT NULL ORDER BY key",
                                           arguments: [row.id])
            try db.execute(cached: "DELETE FROM kventry WHERE store = ?", arguments: [row.id])
            try db.execute(cached: "DELETE FROM kvpeer WHERE store = ?", arguments: [row.id])
            try db.execute(cached: "UPDATE kvstore SET indexID = ?, sequence = 0 WHERE id = ?",
                           arguments: [Int64.random(in: 1...Int64.max), row.id])
            return keys
        }
    }

    // MARK: rows

    private func kvStoreID(_ db: Database, _ store: KeyValueStoreID) throws -> Int64? {
        try Int64.fetchOne(db, cached: "SELECT id FROM kvstore WHERE identifier = ?", arguments: [store.rawValue])
    }

    private func kvStoreRow(_ db: Database, _ store: KeyValueStoreID) throws -> KeyValueStoreRow {
        if let row = try KeyValueStoreRow.fetchOne(db, cached: "SELECT id, indexID, sequence, clockWall, clockLogical FROM kvstore WHERE identifier = ?",
                                                   arguments: [store.rawValue]) {
            return row
        }
        let indexID = Int64.random(in: 1...Int64.max)
        try db.execute(cached: "INSERT INTO kvstore (identifier, indexID, sequence) VALUES (?, ?, 0)", arguments: [store.rawValue, indexID])
        return KeyValueStoreRow(id: db.lastInsertedRowID, indexID: indexID, sequence: 0, clock: .zero)
    }
}
