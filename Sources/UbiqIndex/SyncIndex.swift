import Foundation
import GRDB
import Logging
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

    // MARK: containers

    /// The container's row, created with a fresh random index ID on first use.
    public func containerState(_ container: ContainerID) throws -> ContainerIndexState {
        try pool.write { db in
            let row = try containerRow(db, container)
            return ContainerIndexState(indexID: UInt64(bitPattern: row.indexID), sequence: row.sequence)
        }
    }

    // MARK: items

    public func item(_ container: ContainerID, _ path: RelativePath) throws -> IndexedItem? {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return nil }
            return try Row.fetchOne(db, cached: "SELECT * FROM item WHERE container = ? AND path = ?", arguments: [id, path.rawValue])
                .map(Self.decodeItem)
        }
    }

    /// The items at these paths, in one read; paths the index does not know are left out.
    public func items(_ container: ContainerID, at paths: [RelativePath]) throws -> [RelativePath: IndexedItem] {
        guard !paths.isEmpty else { return [:] }
        return try pool.read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: IndexedItem] = [:]
            for path in paths {
                if let row = try Row.fetchOne(db, cached: "SELECT * FROM item WHERE container = ? AND path = ?", arguments: [id, path.rawValue]) {
                    result[path] = try Self.decodeItem(row)
                }
            }
            return result
        }
    }

    /// Items in the folder `parent` (the container root when nil), not recursive.
    public func children(_ container: ContainerID, of parent: RelativePath?) throws -> [IndexedItem] {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return [] }
            let prefix = parent.map { $0.rawValue + "/" } ?? ""
            let rows = try Row.fetchAll(db, cached: """
                SELECT * FROM item WHERE container = ? AND path >= ? AND path < ? ORDER BY path
                """, arguments: [id, prefix, prefix + "\u{10FFFF}"])
            return try rows.map(Self.decodeItem).filter {
                !$0.item.path.rawValue.dropFirst(prefix.count).contains("/")
            }
        }
    }

    /// A present item whose path differs from `path` only in case.
    public func caseTwin(_ container: ContainerID, of path: RelativePath) throws -> RelativePath? {
        try caseTwins(container, of: [path])[path]
    }

    /// ``caseTwin(_:of:)`` of many paths in one read; paths without a twin are left out.
    public func caseTwins(_ container: ContainerID, of paths: [RelativePath]) throws -> [RelativePath: RelativePath] {
        guard !paths.isEmpty else { return [:] }
        return try pool.read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: RelativePath] = [:]
            for path in paths {
                let twin = try String.fetchOne(db, cached: """
                    SELECT path FROM item WHERE container = ? AND folded = ? AND path != ? AND deleted = 0 LIMIT 1
                    """, arguments: [id, path.caseFolded, path.rawValue]).flatMap { try? RelativePath($0) }
                if let twin { result[path] = twin }
            }
            return result
        }
    }

    /// Every item at or under `root` (the whole container when nil).
    public func items(_ container: ContainerID, under root: RelativePath? = nil) throws -> [IndexedItem] {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return [] }
            var result: [IndexedItem] = []
            try Self.forEachItemRow(db, "SELECT * FROM item", container: id, under: root) { result.append(try Self.decodeItem($0)) }
            return result
        }
    }

    /// The baseline of every item at or under each root (the whole container for nil), in
    /// the order given, in one read: a scan of many paths (a group of applied files, a burst
    /// of watcher events) pays for one transaction.
    public func baselines(_ container: ContainerID, under roots: [RelativePath?]) throws -> [[RelativePath: ItemBaseline]] {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return roots.map { _ in [:] } }
            return try roots.map { root in
                var result: [RelativePath: ItemBaseline] = [:]
                if root == nil { result.reserveCapacity(try Int.fetchOne(db, cached: "SELECT COUNT(*) FROM item WHERE container = ?", arguments: [id]) ?? 0) }
                let select = "SELECT path, deleted, absent, statSize, statMtime, statCtime, statInode FROM item"
                try Self.forEachItemRow(db, select, container: id, under: root) { row in
                    guard let path = try? RelativePath(row[0] as String) else { throw IndexError(.corrupt, "an item has an invalid path") }
                    let stat = (row[3] as Int64?).map {
                        FileStat(size: UInt64($0), mtimeNs: row[4], ctimeNs: row[5], inode: UInt64(bitPattern: row[6] as Int64))
                    }
                    result[path] = ItemBaseline(stat: stat, deleted: row[1], downloaded: !(row[2] as Bool))
                }
                return result
            }
        }
    }

    /// Calls `body` with each row of `select` (a `SELECT … FROM item`) at or under `root`
    /// (every item of the container when nil), in path order, through a cursor: a full
    /// rescan of a large container reads every item. A subtree is two searches of the
    /// primary key; with an OR between them SQLite reads every item of the container.
    private static func forEachItemRow(
        _ db: Database, _ select: String, container id: Int64, under root: RelativePath?, _ body: (Row) throws -> Void
    ) throws {
        let rows: RowCursor
        if let root {
            if let row = try Row.fetchOne(db, cached: "\(select) WHERE container = ? AND path = ?", arguments: [id, root.rawValue]) {
                try body(row)
            }
            rows = try Row.fetchCursor(db.cachedStatement(sql: "\(select) WHERE container = ? AND path >= ? AND path < ? ORDER BY path"),
                                       arguments: [id, root.rawValue + "/", root.rawValue + "/\u{10FFFF}"])
        } else {
            rows = try Row.fetchCursor(db.cachedStatement(sql: "\(select) WHERE container = ? ORDER BY path"), arguments: [id])
        }
        while let row = try rows.next() { try body(row) }
    }

    /// Items whose sequence is above `sequence`, in sequence order.
    public func items(_ container: ContainerID, after sequence: Int64, limit: Int) throws -> [IndexedItem] {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return [] }
            return try Row.fetchAll(db, cached: """
                SELECT * FROM item WHERE container = ? AND sequence > ? ORDER BY sequence LIMIT ?
                """, arguments: [id, sequence, limit]).map(Self.decodeItem)
        }
    }

    /// Writes items, each with the container's next sequence number, and removes any need
    /// they settle, in one transaction. Returns the container's new sequence.
    @discardableResult
    public func commit(_ container: ContainerID, _ writes: [ItemWrite]) throws -> Int64 {
        try pool.write { db in
            var row = try containerRow(db, container)
            for write in writes {
                row.sequence += 1
                try Self.upsert(db, container: row.id, write.item, sequence: row.sequence, stat: write.stat, downloaded: write.downloaded)
                if write.settlesNeed {
                    try Self.settleNeed(db, container: row.id, path: write.item.path, upTo: write.item.version)
                }
            }
            try db.execute(cached: "UPDATE container SET sequence = ? WHERE id = ?", arguments: [row.sequence, row.id])
            return row.sequence
        }
    }

    /// Records new stat fingerprints for items whose content did not change (an mtime-only
    /// change is no new version), in one transaction.
    public func updateStats(_ container: ContainerID, _ stats: [(RelativePath, FileStat)]) throws {
        guard !stats.isEmpty else { return }
        try pool.write { db in
            let id = try containerRow(db, container).id
            for (path, stat) in stats {
                try db.execute(cached: """
                    UPDATE item SET statSize = ?, statMtime = ?, statCtime = ?, statInode = ? WHERE container = ? AND path = ?
                    """, arguments: [Int64(stat.size), stat.mtimeNs, stat.ctimeNs, Int64(bitPattern: stat.inode), id, path.rawValue])
            }
        }
    }

    // MARK: chunks

    /// Places on this device where a chunk with this hash can be read.
    public func locations(of hash: ChunkHash) throws -> [ChunkLocation] {
        try locations(of: [hash])[hash] ?? []
    }

    /// Places where each of these chunks can be read, looked up in one read: a new large
    /// file asks for thousands. Hashes held nowhere are left out.
    public func locations(of hashes: some Sequence<ChunkHash>) throws -> [ChunkHash: [ChunkLocation]] {
        try pool.read { db in
            var result: [ChunkHash: [ChunkLocation]] = [:]
            let statement = try db.cachedStatement(sql: """
                SELECT container.identifier, chunk.file, chunk.offset, chunk.size FROM chunk
                JOIN container ON container.id = chunk.container WHERE chunk.hash = ? LIMIT 8
                """)
            for hash in hashes where result[hash] == nil {
                let found = try Row.fetchAll(statement, arguments: [Data(hash.bytes)]).compactMap { row -> ChunkLocation? in
                    guard let container = try? ContainerID(row[0] as String), let file = Self.decodeFile(row[1]) else { return nil }
                    return ChunkLocation(container: container, file: file, offset: UInt64(row[2] as Int64), size: UInt32(row[3] as Int64))
                }
                if !found.isEmpty { result[hash] = found }
            }
            return result
        }
    }

    /// True when the index holds exactly these chunks at their offsets for the file at
    /// `path`, recorded with this stat: the content a scan hashed is what is on disk, so a
    /// read of it needs no new hash.
    public func holds(_ container: ContainerID, path: RelativePath, run: [ChunkRef], stat: FileStat) throws -> Bool {
        try pool.read { db in
            guard let id = try containerID(db, container),
                  let row = try Row.fetchOne(db, cached: """
                      SELECT statSize, statMtime, statCtime, statInode FROM item WHERE container = ? AND path = ? AND deleted = 0
                      """, arguments: [id, path.rawValue]),
                  let size = row[0] as Int64?, UInt64(size) == stat.size, row[1] as Int64? == stat.mtimeNs,
                  row[2] as Int64? == stat.ctimeNs, (row[3] as Int64?).map({ UInt64(bitPattern: $0) }) == stat.inode
            else { return false }
            let file = "i:" + path.rawValue
            // By hash: SQLite would otherwise walk every chunk of the file for each one.
            for chunk in run {
                guard try Bool.fetchOne(db, cached: """
                    SELECT EXISTS (SELECT 1 FROM chunk INDEXED BY chunk_by_hash
                                   WHERE hash = ? AND container = ? AND file = ? AND offset = ? AND size = ?)
                    """, arguments: [Data(chunk.hash.bytes), id, file, Int64(chunk.offset), Int64(chunk.size)]) == true
                else { return false }
            }
            return true
        }
    }

    /// Records the chunks of a kept conflict version file, or forgets them (chunks nil).
    public func setVersionFile(_ container: ContainerID, name: String, chunks: [ChunkRef]?) throws {
        try pool.write { db in
            let id = try containerRow(db, container).id
            try Self.replaceChunks(db, container: id, file: "v:" + name, chunks: chunks ?? [])
        }
    }

    // MARK: needs

    /// Remote versions this device has decided to apply but not yet applied.
    public func needs(_ container: ContainerID) throws -> [Item] {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return [] }
            return try Data.fetchAll(db, cached: "SELECT target FROM need WHERE container = ?", arguments: [id])
                .map { try IndexBinary.decodeItem($0) }
        }
    }

    /// The pending needs at these paths, in one read.
    public func needs(_ container: ContainerID, at paths: [RelativePath]) throws -> [RelativePath: Item] {
        guard !paths.isEmpty else { return [:] }
        return try pool.read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: Item] = [:]
            for path in paths {
                if let data = try Data.fetchOne(db, cached: "SELECT target FROM need WHERE container = ? AND path = ?",
                                                arguments: [id, path.rawValue]) {
                    result[path] = try IndexBinary.decodeItem(data)
                }
            }
            return result
        }
    }

    public func need(_ container: ContainerID, _ path: RelativePath) throws -> Item? {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return nil }
            return try Data.fetchOne(db, cached: "SELECT target FROM need WHERE container = ? AND path = ?", arguments: [id, path.rawValue])
                .map { try IndexBinary.decodeItem($0) }
        }
    }

    /// Drops the need for `path` if `version` covers what it asked for. A newer need that
    /// arrived while an older one was being applied stays.
    public func removeNeed(_ container: ContainerID, _ path: RelativePath, upTo version: VersionVector) throws {
        try pool.write { db in
            try Self.settleNeed(db, container: try containerRow(db, container).id, path: path, upTo: version)
        }
    }

    private static func settleNeed(_ db: Database, container: Int64, path: RelativePath, upTo version: VersionVector) throws {
        guard let data = try Data.fetchOne(db, cached: "SELECT target FROM need WHERE container = ? AND path = ?",
                                           arguments: [container, path.rawValue])
        else { return }
        switch try IndexBinary.decodeItem(data).version.compare(to: version) {
        case .equal, .dominated:
            try db.execute(cached: "DELETE FROM need WHERE container = ? AND path = ?", arguments: [container, path.rawValue])
        case .dominates, .concurrent:
            break
        }
    }

    // MARK: peers

    /// Stores needs and local merges learned from one index update of a peer together with the
    /// sequence reached, so a restart resumes exactly there.
    /// `held` says, per path in the update, which version the peer holds the content of
    /// (nil: none), for `isUploaded`.
    @discardableResult
    public func recordRemoteUpdate(
        _ container: ContainerID, peer: DeviceID, state: PeerIndexState, needs: [Item], merges: [ItemWrite],
        held: [(path: RelativePath, version: VersionVector?)] = []
    ) throws -> Int64 {
        try pool.write { db in
            var row = try containerRow(db, container)
            for need in needs {
                // A newer version of a path the user asked to download stays asked for.
                try db.execute(cached: """
                    INSERT INTO need (container, path, target, size, deleted) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (container, path) DO UPDATE SET target = excluded.target, size = excluded.size, deleted = excluded.deleted
                    """, arguments: [row.id, need.path.rawValue, IndexBinary.encode(need), Int64(need.size), need.deleted])
            }
            for (path, version) in held {
                if let version {
                    try db.execute(cached: "INSERT OR REPLACE INTO held (container, path, device, version) VALUES (?, ?, ?, ?)",
                                   arguments: [row.id, path.rawValue, peer.rawValue, IndexBinary.encode(version)])
                } else {
                    try db.execute(cached: "DELETE FROM held WHERE container = ? AND path = ? AND device = ?",
                                   arguments: [row.id, path.rawValue, peer.rawValue])
                }
            }
            for write in merges {
                row.sequence += 1
                try Self.upsert(db, container: row.id, write.item, sequence: row.sequence, stat: write.stat, downloaded: write.downloaded)
            }
            try db.execute(cached: "UPDATE container SET sequence = ? WHERE id = ?", arguments: [row.sequence, row.id])
            try db.execute(cached: "INSERT OR REPLACE INTO peer (device, container, indexID, maxSequence) VALUES (?, ?, ?, ?)",
                           arguments: [peer.rawValue, row.id, Int64(bitPattern: state.indexID), state.maxSequence])
            return row.sequence
        }
    }

    /// The items of `container` that have unresolved conflict versions.
    public func conflictedItems(_ container: ContainerID) throws -> [Item] {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return [] }
            return try Row.fetchAll(db, cached: "SELECT * FROM item WHERE container = ? AND conflicts IS NOT NULL", arguments: [id])
                .map { try Self.decodeItem($0).item }
        }
    }

    /// Devices other than this one known to hold the content of exactly `version` of `path`.
    public func holders(_ container: ContainerID, _ path: RelativePath, version: VersionVector) throws -> [DeviceID] {
        try holders(container, of: [path: version])[path] ?? []
    }

    /// ``holders(_:_:version:)`` of many versions in one read; paths no device holds at the
    /// wanted version are left out.
    public func holders(_ container: ContainerID, of wanted: [RelativePath: VersionVector]) throws -> [RelativePath: [DeviceID]] {
        guard !wanted.isEmpty else { return [:] }
        return try pool.read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: [DeviceID]] = [:]
            for (path, version) in wanted {
                let devices = try Row.fetchAll(db, cached: "SELECT device, version FROM held WHERE container = ? AND path = ?",
                                               arguments: [id, path.rawValue]).compactMap { row in
                    try IndexBinary.decodeVersion(row[1]) == version ? DeviceID(row[0] as String) : nil
                }
                if !devices.isEmpty { result[path] = devices }
            }
            return result
        }
    }

    /// The versions other devices hold the content of, by path.
    public func heldVersions(_ container: ContainerID) throws -> [RelativePath: [VersionVector]] {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: [VersionVector]] = [:]
            for row in try Row.fetchAll(db, cached: "SELECT path, version FROM held WHERE container = ?", arguments: [id]) {
                guard let path = try? RelativePath(row[0] as String) else { continue }
                result[path, default: []].append(try IndexBinary.decodeVersion(row[1]))
            }
            return result
        }
    }

    /// Asks for the content of `item` (an on-demand file not downloaded): a need the puller
    /// fetches.
    public func requestFetch(_ container: ContainerID, _ item: Item) throws {
        try pool.write { db in
            let id = try containerRow(db, container).id
            try db.execute(cached: """
                INSERT INTO need (container, path, target, fetch, size, deleted) VALUES (?, ?, ?, 1, ?, ?)
                ON CONFLICT (container, path) DO UPDATE SET fetch = 1
                """, arguments: [id, item.path.rawValue, IndexBinary.encode(item), Int64(item.size), item.deleted])
        }
    }

    /// Paths whose content was asked for and is still to come.
    public func fetchRequests(_ container: ContainerID) throws -> Set<RelativePath> {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return [] }
            return Set(try String.fetchAll(db, cached: "SELECT path FROM need WHERE container = ? AND fetch = 1", arguments: [id])
                .compactMap { try? RelativePath($0) })
        }
    }

    public func peerState(_ peer: DeviceID, _ container: ContainerID) throws -> PeerIndexState? {
        try pool.read { db in
            guard let id = try containerID(db, container) else { return nil }
            return try Row.fetchOne(db, cached: "SELECT indexID, maxSequence FROM peer WHERE device = ? AND container = ?",
                                    arguments: [peer.rawValue, id]).map {
                PeerIndexState(indexID: UInt64(bitPattern: $0[0] as Int64), maxSequence: $0[1])
            }
        }
    }

    // MARK: statistics

    public func statistics(_ container: ContainerID) throws -> ContainerStatistics {
        try pool.read { db in
            var stats = ContainerStatistics()
            guard let id = try containerID(db, container) else { return stats }
            for row in try Row.fetchAll(db, cached: """
                SELECT kind, COUNT(*), SUM(size), SUM(conflicts IS NOT NULL), SUM(absent) FROM item
                WHERE container = ? AND deleted = 0 GROUP BY kind
                """, arguments: [id]) {
                let count: Int = row[1]
                switch ItemKind(code: row[0]) {
                case .file: stats.files = count; stats.bytes = UInt64(row[2] as Int64? ?? 0)
                case .directory: stats.directories = count
                case .symlink: stats.symlinks = count
                }
                stats.conflicts += row[3] as Int? ?? 0
                stats.notDownloaded += row[4] as Int? ?? 0
            }
            if let row = try Row.fetchOne(db, cached: "SELECT COUNT(*), SUM(size * (deleted = 0)) FROM need WHERE container = ?", arguments: [id]) {
                stats.needItems = row[0]
                stats.needBytes = UInt64(row[1] as Int64? ?? 0)
            }
            return stats
        }
    }

    // MARK: rows

    private struct ContainerRowValue {
        var id: Int64
        var indexID: Int64
        var sequence: Int64
    }

    private func containerID(_ db: Database, _ container: ContainerID) throws -> Int64? {
        if let id = rowIDs.ids.withLock({ $0[container.rawValue] }) { return id }
        let id = try Int64.fetchOne(db, cached: "SELECT id FROM container WHERE identifier = ?", arguments: [container.rawValue])
        // Called only in reads, which see committed rows alone.
        if let id { rowIDs.ids.withLock { $0[container.rawValue] = id } }
        return id
    }

    private func containerRow(_ db: Database, _ container: ContainerID) throws -> ContainerRowValue {
        if let row = try Row.fetchOne(db, cached: "SELECT id, indexID, sequence FROM container WHERE identifier = ?", arguments: [container.rawValue]) {
            return ContainerRowValue(id: row[0], indexID: row[1], sequence: row[2])
        }
        let indexID = Int64.random(in: 1...Int64.max)
        try db.execute(cached: "INSERT INTO container (identifier, indexID, sequence) VALUES (?, ?, 0)", arguments: [container.rawValue, indexID])
        return ContainerRowValue(id: db.lastInsertedRowID, indexID: indexID, sequence: 0)
    }

    private static func upsert(_ db: Database, container: Int64, _ item: Item, sequence: Int64, stat: FileStat?,
                               downloaded: Bool) throws {
        let absent = !downloaded && !item.deleted && item.kind == .file
        try db.execute(cached: """
            INSERT OR REPLACE INTO item (container, path, kind, deleted, size, mtime, executable, symlinkTarget, version,
                modifiedBy, chunks, conflicts, sequence, statSize, statMtime, statCtime, statInode, folded, absent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                container, item.path.rawValue, item.kind.code, item.deleted, Int64(item.size), item.mtime, item.executable,
                item.symlinkTarget, IndexBinary.encode(item.version), item.modifiedBy.rawValue,
                IndexCoding.encode(item.chunks), item.conflicts.isEmpty ? nil : IndexBinary.encode(item.conflicts),
                sequence, stat.map { Int64($0.size) }, stat?.mtimeNs, stat?.ctimeNs, stat.map { Int64(bitPattern: $0.inode) },
                item.path.caseFolded, absent,
            ])
        // The chunk table lists only what can be read here.
        try replaceChunks(db, container: container, file: "i:" + item.path.rawValue,
                          chunks: item.deleted || item.kind != .file || absent ? [] : item.chunks)
    }

    /// Makes the chunk table list exactly `chunks` for the file. Rows of chunks the file keeps
    /// stay (only their offset is updated where it moved), so a change to a large file
    /// rewrites the rows of what changed, not of every chunk and its two index entries.
    private static func replaceChunks(_ db: Database, container: Int64, file: String, chunks: [ChunkRef]) throws {
        struct Place: Hashable { var hash: Data; var size: Int64; var offset: Int64 }
        struct Content: Hashable { var hash: Data; var size: Int64 }
        var byPlace: [Place: Int64] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT rowid, hash, offset, size FROM chunk WHERE container = ? AND file = ?"),
                                       arguments: [container, file])
        while let row = try rows.next() {
            byPlace[Place(hash: row[1], size: row[3], offset: row[2])] = row[0]
        }
        var moved: [(chunk: ChunkRef, content: Content)] = []
        for chunk in chunks {
            let place = Place(hash: Data(chunk.hash.bytes), size: Int64(chunk.size), offset: Int64(chunk.offset))
            if byPlace.removeValue(forKey: place) == nil { moved.append((chunk, Content(hash: place.hash, size: place.size))) }
        }
        var unused: [Content: [Int64]] = [:]
        for (place, rowid) in byPlace { unused[Content(hash: place.hash, size: place.size), default: []].append(rowid) }
        let insert = try db.cachedStatement(sql: "INSERT INTO chunk (hash, container, file, offset, size) VALUES (?, ?, ?, ?, ?)")
        let update = try db.cachedStatement(sql: "UPDATE chunk SET offset = ? WHERE rowid = ?")
        for (chunk, content) in moved {
            if let rowid = unused[content]?.popLast() {
                try update.execute(arguments: [Int64(chunk.offset), rowid])
            } else {
                try insert.execute(arguments: [content.hash, container, file, Int64(chunk.offset), content.size])
            }
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM chunk WHERE rowid = ?")
        for rowid in unused.values.joined() { try delete.execute(arguments: [rowid]) }
    }

    private static func decodeFile(_ raw: String) -> ChunkLocation.File? {
        if raw.hasPrefix("i:") { return (try? RelativePath(String(raw.dropFirst(2)))).map { .item($0) } }
        if raw.hasPrefix("v:") { return .version(String(raw.dropFirst(2))) }
        return nil
    }

    private static func decodeItem(_ row: Row) throws -> IndexedItem {
        let path: String = row["path"]
        let statSize: Int64? = row["statSize"]
        let conflicts: Data? = row["conflicts"]
        let item = Item(
            path: try RelativePath(path), kind: ItemKind(code: row["kind"]), deleted: row["deleted"],
            size: UInt64(row["size"] as Int64), mtime: row["mtime"], executable: row["executable"],
            symlinkTarget: row["symlinkTarget"], chunks: try IndexCoding.decodeChunks(row["chunks"]),
            version: try IndexBinary.decodeVersion(row["version"]),
            modifiedBy: DeviceID(row["modifiedBy"] as String),
            conflicts: try conflicts.map { try IndexBinary.decodeConflicts($0) } ?? [])
        let stat = statSize.map {
            FileStat(size: UInt64($0), mtimeNs: row["statMtime"], ctimeNs: row["statCtime"],
                            inode: UInt64(bitPattern: row["statInode"] as Int64))
        }
        return IndexedItem(item: item, sequence: row["sequence"], stat: stat, downloaded: !(row["absent"] as Bool))
    }
}

/// One item to store, with what the disk now holds for it.
public struct ItemWrite: Sendable {
    public var item: Item
    public var stat: FileStat?
    /// True when this write applies a pending need for the same path: the need is dropped if
    /// this item's version covers it.
    public var settlesNeed: Bool
    /// False to record the item without its content (on-demand containers, eviction).
    public var downloaded: Bool

    public init(item: Item, stat: FileStat?, settlesNeed: Bool = false, downloaded: Bool = true) {
        self.item = item
        self.stat = stat
        self.settlesNeed = settlesNeed
        self.downloaded = downloaded
    }
}

extension ItemKind {
    var code: Int {
        switch self {
        case .file: 0
        case .directory: 1
        case .symlink: 2
        }
    }

    init(code: Int) {
        switch code {
        case 1: self = .directory
        case 2: self = .symlink
        default: self = .file
        }
    }
}

/// The cache behind `SyncIndex.containerID`, shared by copies of one index.
private final class RowIDCache: Sendable {
    let ids = Mutex<[String: Int64]>([:])
}
