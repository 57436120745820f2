import ServiceLifecycle
import UbiqSync

/// Ends the sessions of devices as they are removed from the account, here or on a peer; new
/// connections of theirs are refused by the transport and the engine.
struct DeviceRemovalService: Service {
    let devices: AccountDevices
    let engine: SyncEngine

    func run() async throws {
        for await removed in devices.removals().cancelOnGracefulShutdown() {
            await engine.endSessions(with: removed)
        }
    }
}

extension DeviceRemovalService: CustomStringConvertible {
    var description: String { "DeviceRemovalService" }
}
