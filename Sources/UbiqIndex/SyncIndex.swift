import Foundation
import GRDB
import Synchronization
import UbiqModel

/// The SQLite index of every container this device syncs (GRDB over the system
/// libsqlite3, WAL). Its write methods keep the invariants: every change to an item's synced
/// data gets the container's next sequence number, and the chunk table always lists the
/// chunks of what is on disk, so the puller can find local copies by hash.
public struct SyncIndex: Sendable {
    /// How the index reaches SQLite.
    enum Connections: Sendable {
        /// A file in WAL mode with a writer and concurrent readers: the agent's index, so that
        /// status and serving read while the puller writes.
        case file(DatabasePool)
        /// One connection to a database in memory: the simulator's, whose devices share one
        /// process and one thread and whose crashes end an engine, never the index.
        case memory(DatabaseQueue)
    }

    let connections: Connections
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
            let pool = try DatabasePool(path: path, configuration: configuration)
            try IndexMigrations.migrator.migrate(pool)
            connections = .file(pool)
        } catch {
            throw IndexError(.database, "cannot open the index at \(path): \(error). Move the file away to rebuild it from a rescan and peers.")
        }
    }

    /// An index in memory with the same schema and statements, gone when the last copy is:
    /// the simulator's, where SQLite's file locking and WAL writes took a third of each run.
    public static func inMemory() throws -> SyncIndex {
        do {
            let queue = try DatabaseQueue()
            try IndexMigrations.migrator.migrate(queue)
            return SyncIndex(connections: .memory(queue))
        } catch {
            throw IndexError(.database, "cannot open an index in memory: \(error)")
        }
    }

    private init(connections: Connections) {
        self.connections = connections
    }

    /// Every write of the index goes through here.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        defer { writes.advance() }
        switch connections {
        case .file(let pool): return try pool.write(updates)
        case .memory(let queue): return try queue.write(updates)
        }
    }

    /// Every read of the index goes through here: a read transaction on one of the pool's
    /// readers, so a read of several statements sees one state. The single connection in
    /// memory runs one thing at a time, so a read there needs no transaction of its own.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        switch connections {
        case .file(let pool): try pool.read(body)
        case .memory(let queue): try queue.unsafeRead(body)
        }
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
