import Foundation
import GRDB
import UbiqModel

/// The account's devices and revocations as this agent knows them, kept across restarts.
extension SyncIndex {
    public func accountDevices() throws -> (devices: [DeviceRecord], revocations: [Revocation]) {
        try read { db in
            let decoder = JSONDecoder()
            let devices = try Data.fetchAll(db, sql: "SELECT record FROM account_device ORDER BY id")
                .map { try decoder.decode(DeviceRecord.self, from: $0) }
            let revocations = try Data.fetchAll(db, sql: "SELECT revocation FROM revocation ORDER BY device")
                .map { try decoder.decode(Revocation.self, from: $0) }
            return (devices, revocations)
        }
    }

    /// Stores records and revocations, replacing what was stored for the same devices.
    public func storeAccountDevices(_ devices: [DeviceRecord], revocations: [Revocation] = []) throws {
        guard !devices.isEmpty || !revocations.isEmpty else { return }
        let encoder = JSONEncoder()
        try write { db in
            for device in devices {
                try db.execute(cached: "INSERT OR REPLACE INTO account_device (id, record) VALUES (?, ?)",
                               arguments: [device.id.rawValue, try encoder.encode(device)])
            }
            for revocation in revocations {
                try db.execute(cached: "INSERT OR REPLACE INTO revocation (device, revocation) VALUES (?, ?)",
                               arguments: [revocation.device.rawValue, try encoder.encode(revocation)])
            }
        }
    }

    /// Forgets the revocations of `devices` (ones an account rotation overrules).
    public func removeRevocations(of devices: [DeviceID]) throws {
        guard !devices.isEmpty else { return }
        try write { db in
            for device in devices {
                try db.execute(cached: "DELETE FROM revocation WHERE device = ?", arguments: [device.rawValue])
            }
        }
    }
}
