import GRDB
import UbiqModel

/// Whether syncing is paused, for a container and for the whole agent, kept across restarts.
extension SyncIndex {
    public func isPaused(_ container: ContainerID) throws -> Bool {
        try read { db in
            guard let id = try containerID(db, container) else { return false }
            return try Bool.fetchOne(db, cached: "SELECT paused FROM container WHERE id = ?", arguments: [id]) ?? false
        }
    }

    public func setPaused(_ container: ContainerID, _ paused: Bool) throws {
        try write { db in
            let id = try containerRow(db, container).id
            try db.execute(cached: "UPDATE container SET paused = ? WHERE id = ?", arguments: [paused, id])
        }
    }

    public func isAgentPaused() throws -> Bool {
        try read { db in try Bool.fetchOne(db, cached: "SELECT value FROM setting WHERE name = 'paused'") ?? false }
    }

    public func setAgentPaused(_ paused: Bool) throws {
        try write { db in
            try db.execute(cached: "INSERT INTO setting (name, value) VALUES ('paused', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                           arguments: [paused])
        }
    }
}
