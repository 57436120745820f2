import Foundation
import GRDB
import UbiqModel

/// The `need` table: remote versions decided on and not yet applied, and content asked for.
extension SyncIndex {
    /// Remote versions this device has decided to apply but not yet applied.
    public func needs(_ container: ContainerID) throws -> [Item] {
        try read { db in
            guard let id = try containerID(db, container) else { return [] }
            return try Data.fetchAll(db, cached: "SELECT target FROM need WHERE container = ?", arguments: [id])
                .map { try IndexBinary.decodeItem($0) }
        }
    }

    /// The pending needs at these paths, in one read.
    public func needs(_ container: ContainerID, at paths: [RelativePath]) throws -> [RelativePath: Item] {
        guard !paths.isEmpty else { return [:] }
        return try read { db in
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
        try read { db in
            guard let id = try containerID(db, container) else { return nil }
            return try Data.fetchOne(db, cached: "SELECT target FROM need WHERE container = ? AND path = ?", arguments: [id, path.rawValue])
                .map { try IndexBinary.decodeItem($0) }
        }
    }

    /// Drops the need for `path` if `version` covers what it asked for. A newer need that
    /// arrived while an older one was being applied stays.
    public func removeNeed(_ container: ContainerID, _ path: RelativePath, upTo version: VersionVector) throws {
        try write { db in
            try Self.settleNeed(db, container: try containerRow(db, container).id, path: path, upTo: version)
        }
    }

    /// Drops the need for `path` if `version` covers it; for ``removeNeed(_:_:upTo:)`` and
    /// commits that apply a need.
    static func settleNeed(_ db: Database, container: Int64, path: RelativePath, upTo version: VersionVector) throws {
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

    /// Asks for the content of `item` (an on-demand file not downloaded): a need the puller
    /// fetches.
    public func requestFetch(_ container: ContainerID, _ item: Item) throws {
        try write { db in
            let id = try containerRow(db, container).id
            try db.execute(cached: """
                INSERT INTO need (container, path, target, fetch, size, deleted) VALUES (?, ?, ?, 1, ?, ?)
                ON CONFLICT (container, path) DO UPDATE SET fetch = 1
                """, arguments: [id, item.path.rawValue, IndexBinary.encode(item), Int64(item.size), item.deleted])
        }
    }

    /// Paths whose content was asked for and is still to come.
    public func fetchRequests(_ container: ContainerID) throws -> Set<RelativePath> {
        try read { db in
            guard let id = try containerID(db, container) else { return [] }
            return Set(try String.fetchAll(db, cached: "SELECT path FROM need WHERE container = ? AND fetch = 1", arguments: [id])
                .compactMap { try? RelativePath($0) })
        }
    }
}
