import Foundation
import GRDB
import UbiqModel

/// The `peer` and `held` tables: how far each peer's index has been read, and which
/// versions peers hold the content of.
extension SyncIndex {
    /// Stores needs and local merges learned from one index update of a peer together with the
    /// sequence reached, so a restart resumes exactly there.
    /// `held` says, per path in the update, which version the peer holds the content of
    /// (nil: none), for `isUploaded`.
    @discardableResult
    public func recordRemoteUpdate(
        _ container: ContainerID, peer: DeviceID, state: PeerIndexState, needs: [Item], merges: [ItemWrite],
        held: [(path: RelativePath, version: VersionVector?)] = []
    ) throws -> Int64 {
        try write { db in
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

    /// Devices other than this one known to hold the content of exactly `version` of `path`.
    public func holders(_ container: ContainerID, _ path: RelativePath, version: VersionVector) throws -> [DeviceID] {
        try holders(container, of: [path: version])[path] ?? []
    }

    /// ``holders(_:_:version:)`` of many versions in one read; paths no device holds at the
    /// wanted version are left out.
    public func holders(_ container: ContainerID, of wanted: [RelativePath: VersionVector]) throws -> [RelativePath: [DeviceID]] {
        guard !wanted.isEmpty else { return [:] }
        return try read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: [DeviceID]] = [:]
            for (path, version) in wanted {
                let devices = try Self.held(db, id, path).compactMap { $0.version == version ? $0.device : nil }
                if !devices.isEmpty { result[path] = devices }
            }
            return result
        }
    }

    /// The versions other devices hold the content of at `paths`, by path.
    public func heldVersions(_ container: ContainerID, at paths: [RelativePath]) throws -> [RelativePath: [VersionVector]] {
        guard !paths.isEmpty else { return [:] }
        return try read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: [VersionVector]] = [:]
            for path in paths {
                let versions = try Self.held(db, id, path).map(\.version)
                if !versions.isEmpty { result[path] = versions }
            }
            return result
        }
    }

    /// Which device holds which version of one path.
    private static func held(_ db: Database, _ container: Int64, _ path: RelativePath) throws -> [(device: DeviceID, version: VersionVector)] {
        try Row.fetchAll(db, cached: "SELECT device, version FROM held WHERE container = ? AND path = ?", arguments: [container, path.rawValue]).map { row in
            (DeviceID(try row.stored(HeldRow.Columns.device) as String), try IndexBinary.decodeVersion(row.stored(HeldRow.Columns.version)))
        }
    }

    /// The versions other devices hold the content of, by path.
    public func heldVersions(_ container: ContainerID) throws -> [RelativePath: [VersionVector]] {
        try read { db in
            guard let id = try containerID(db, container) else { return [:] }
            var result: [RelativePath: [VersionVector]] = [:]
            for row in try Row.fetchAll(db, cached: "SELECT path, version FROM held WHERE container = ?", arguments: [id]) {
                guard let path = try? RelativePath(row.stored(HeldRow.Columns.path) as String) else { continue }
                result[path, default: []].append(try IndexBinary.decodeVersion(row.stored(HeldRow.Columns.version)))
            }
            return result
        }
    }

    public func peerState(_ peer: DeviceID, _ container: ContainerID) throws -> PeerIndexState? {
        try read { db in
            guard let id = try containerID(db, container) else { return nil }
            return try PeerStateRow.fetchOne(db, cached: "SELECT indexID, maxSequence FROM peer WHERE device = ? AND container = ?",
                                             arguments: [peer.rawValue, id])?.state
        }
    }
}
