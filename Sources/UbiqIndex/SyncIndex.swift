import Foundation
import GRDB
import Synchronization
import UbiqModel

/// The SQLite index of every container this device syncs (GRDB over the system
/// libsqlite3, WAL). Its write methods keep the invariants: every change to an item's synced
/// data gets the container's next sequence number, and the chunk table always lists the
/// chunks of what is on disk, so the puller can find local copies by hash.
public struct SyncIndex: Sendable {
    let pool: DatabasePool
    /// Container rows by identifier, once read: rows are never deleted, so a row ID stays
    /// valid, and each read need not look it up again.
    private let rowIDs = RowIDCache()
    /// Counts writes, so status counters are computed again only after something changed.
    let writes = WriteGeneration()

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        // Owner-only, like all state; SQLite gives the -wal and -shm files the same mode.
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try IndexMigrations.migrator.migrate(pool)
        } catch {
            throw IndexError(.database, "cannot open the index at \(path): \(error). Move the file away to rebuild it from a rescan and peers.")
        }
    }

    /// Every write of the index goes through here.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        defer { writes.advance() }
        return try pool.write(updates)
    }

    /// The container's row, created with a fresh random index ID on first use.
    public func containerState(_ container: ContainerID) throws -> ContainerIndexState {
        try write { db in
            let row = try containerRow(db, container)
            return ContainerIndexState(indexID: UInt64(bitPattern: row.indexID), sequence: row.sequence)
        }
    }

    /// The container's row ID, or nil before anything of it was stored.
    func containerID(_ db: Database, _ container: ContainerID) throws -> Int64? {
        if let id = rowIDs.ids.withLock({ $0[container.rawValue] }) { return id }
        let id = try Int64.fetchOne(db, cached: "SELECT id FROM container WHERE identifier = ?", arguments: [container.rawValue])
        // Called only in reads, which see committed rows alone.
        if let id { rowIDs.ids.withLock { $0[container.rawValue] = id } }
        return id
    }

    /// The container's row, created on first use; in writes only.
    func containerRow(_ db: Database, _ container: ContainerID) throws -> ContainerRow {
        if let row = try ContainerRow.fetchOne(db, cached: "SELECT id, indexID, sequence FROM container WHERE identifier = ?",
                                               arguments: [container.rawValue]) {
            return row
        }
        let indexID = Int64.random(in: 1...Int64.max)
        try db.execute(cached: "INSERT INTO container (identifier, indexID, sequence) VALUES (?, ?, 0)", arguments: [container.rawValue, indexID])
        return ContainerRow(id: db.lastInsertedRowID, indexID: indexID, sequence: 0)
    }
}

/// The cache behind `SyncIndex.containerID`, shared by copies of one index.
private final class RowIDCache: Sendable {
    let ids = Mutex<[String: Int64]>([:])
}

/// The number of writes of one index so far, and status counters as they were after a
/// given number of writes: counting a container of 100,000 items takes some 30 ms, and
/// status is asked for far more often than the index changes while it is at rest.
final class WriteGeneration: Sendable {
    private let count = Atomic<UInt64>(0)
    private let statistics = Mutex<[ContainerID: (generation: UInt64, value: ContainerStatistics)]>([:])

    var current: UInt64 { count.load(ordering: .acquiring) }

    /// Called after each write has committed (or failed).
    func advance() { count.add(1, ordering: .releasing) }

    func statistics(_ container: ContainerID, at generation: UInt64) -> ContainerStatistics? {
        statistics.withLock { $0[container].flatMap { $0.generation == generation ? $0.value : nil } }
    }

    /// Keeps `value`, computed from a read that began at `generation`.
    func keep(_ value: ContainerStatistics, of container: ContainerID, at generation: UInt64) {
        statistics.withLock { $0[container] = (generation, value) }
    }
}
