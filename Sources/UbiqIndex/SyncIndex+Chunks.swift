import Foundation
import GRDB
import UbiqModel

/// The `chunk` table: where each chunk of what is on disk can be read, for the puller to
/// copy local chunks and the server to vouch for a run without hashing it again.
extension SyncIndex {
    /// Places on this device where a chunk with this hash can be read.
    public func locations(of hash: ChunkHash) throws -> [ChunkLocation] {
        try locations(of: [hash])[hash] ?? []
    }

    /// Places where each of these chunks can be read, looked up in one read: a new large
    /// file asks for thousands. Hashes held nowhere are left out, and so are corrupt rows:
    /// the chunk is then fetched from a peer, never read from the wrong file.
    public func locations(of hashes: some Sequence<ChunkHash>) throws -> [ChunkHash: [ChunkLocation]] {
        try read { db in
            var result: [ChunkHash: [ChunkLocation]] = [:]
            let statement = try db.cachedStatement(sql: """
                SELECT container.identifier, chunk.file, chunk.offset, chunk.size FROM chunk
                JOIN container ON container.id = chunk.container WHERE chunk.hash = ? LIMIT 8
                """)
            for hash in hashes where result[hash] == nil {
                var found: [ChunkLocation] = []
                let rows = try Row.fetchCursor(statement, arguments: [Data(hash.bytes)])
                while let row = try rows.next() {
                    if let location = try? ChunkRow.location(in: row) { found.append(location) }
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
        try read { db in
            guard let id = try containerID(db, container),
                  let row = try Row.fetchOne(db, cached: """
                      SELECT statSize, statMtime, statCtime, statInode FROM item WHERE container = ? AND path = ? AND deleted = 0
                      """, arguments: [id, path.rawValue]),
                  try ItemRow.stat(in: row) == stat
            else { return false }
            let file = ChunkLocation.File.item(path).stored
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

    /// Records the chunks of a kept conflict version file, or forgets them (chunks nil), and
    /// with them those of the files inside it where it is a package's.
    public func setVersionFile(_ container: ContainerID, name: String, chunks: [ChunkRef]?) throws {
        try write { db in
            let id = try containerRow(db, container).id
            try Self.replaceChunks(db, container: id, file: .version(name), chunks: chunks ?? [])
            if chunks == nil { try Self.replaceTreeChunks(db, container: id, folder: .version(name), content: nil) }
        }
    }

    /// Records the chunks of the files inside a kept package version named `name`, each at
    /// `name/inner/path`, in one transaction.
    public func setVersionPackage(_ container: ContainerID, name: String, content: PackageContent) throws {
        try write { db in
            try Self.replaceTreeChunks(db, container: containerRow(db, container).id, folder: .version(name), content: content)
        }
    }

    /// Makes the chunk table list the files of a package tree at `folder` (a package in place,
    /// or a kept one in `.ubiq/versions/` or `.ubiq/history/`), each at `folder/inner/path`
    /// with offsets from the file's start; none where `content` is nil. Rows of an earlier
    /// tree there go.
    static func replaceTreeChunks(_ db: Database, container: Int64, folder: ChunkLocation.File, content: PackageContent?) throws {
        let prefix = folder.stored + "/"
        try db.execute(cached: "DELETE FROM chunk WHERE container = ? AND file >= ? AND file < ?",
                       arguments: [container, prefix, prefix + "\u{10FFFF}"])
        guard let content else { return }
        let insert = try db.cachedStatement(sql: "INSERT INTO chunk (hash, container, file, offset, size) VALUES (?, ?, ?, ?, ?)")
        for (index, chunks) in content.files {
            let file = prefix + content.members[index].path.rawValue
            for chunk in chunks {
                try insert.execute(arguments: [Data(chunk.hash.bytes), container, file, Int64(chunk.offset), Int64(chunk.size)])
            }
        }
    }

    /// Makes the chunk table list exactly `chunks` for the file. Rows of chunks the file keeps
    /// stay (only their offset is updated where it moved), so a change to a large file
    /// rewrites the rows of what changed, not of every chunk and its two index entries.
    static func replaceChunks(_ db: Database, container: Int64, file: ChunkLocation.File, chunks: [ChunkRef]) throws {
        let file = file.stored
        struct Place: Hashable { var hash: Data; var size: Int64; var offset: Int64 }
        struct Content: Hashable { var hash: Data; var size: Int64 }
        var byPlace: [Place: Int64] = [:]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT rowid, hash, offset, size FROM chunk WHERE container = ? AND file = ?"),
                                       arguments: [container, file])
        while let row = try rows.next() {
            let place = Place(hash: try row.stored(ChunkRow.Columns.hash), size: try row.stored(ChunkRow.Columns.size),
                              offset: try row.stored(ChunkRow.Columns.offset))
            byPlace[place] = try row.stored(Column.rowID)
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
}
