import UbiqModel
import UbiqWire

/// The account's devices between two peers (protocol 4): the whole list after the hello and
/// whenever it changes here; the peer's list merged into this device's.
extension PeerSession {
    /// Whether this session passes device lists: both sides speak protocol 4.
    var passesDevices: Bool { (agreement?.version ?? 0) >= 4 && devices != nil }

    func sendDevices(_ devices: AccountDevices) async throws {
        for await _ in devices.changes() {
            let registry = await devices.current
            let list = DeviceListMapping.list(registry.devices.values.sorted { $0.id < $1.id },
                                              revocations: registry.revocations.values.sorted { $0.device < $1.device })
            try await link.send(Ubiq_Wire_Envelope(.deviceList(list)))
        }
    }

    func receiveDevices(_ list: Ubiq_Wire_DeviceList) async {
        guard passesDevices, let devices else {
            logger.debug("a device list from a peer that does not pass them; ignored")
            return
        }
        let entries = DeviceListMapping.entries(list)
        if entries.refused > 0 {
            logger.warning("a peer's device list had malformed entries; left out", metadata: ["count": "\(entries.refused)"])
        }
        await devices.receive(devices: entries.devices, revocations: entries.revocations, from: link.remoteDevice)
    }
}
