import Foundation
import UbiqChunking
import UbiqModel

/// The account's devices on the wire (protocol 4). Decoding checks each entry's sizes and
/// names; a bad one is left out and counted, never the whole list refused. Signatures are
/// checked by whoever holds the account's certificate.
public enum DeviceListMapping {
    /// The most devices and revocations one list carries.
    public static let maxEntries = DeviceRegistry.maximumDevices
    /// An ECDSA P-256 signature in DER is at most 72 bytes.
    static let maxSignatureBytes = 128

    public static func list(_ devices: [DeviceRecord], revocations: [Revocation]) -> Ubiq_Wire_DeviceList {
        var list = Ubiq_Wire_DeviceList()
        list.devices = devices.prefix(maxEntries).map { record in
            var info = Ubiq_Wire_DeviceInfo()
            info.deviceID = record.id.rawValue
            info.name = record.name
            info.containers = record.containers.map(\.rawValue)
            info.describedAtMs = record.describedAt
            info.lastSeenMs = record.lastSeen
            info.address = record.address
            info.publicKey = Data(record.publicKey)
            info.addresses = Array(record.addresses.prefix(DeviceRecord.maximumAddresses))
            return info
        }
        list.revocations = revocations.prefix(maxEntries).map { revocation in
            var wire = Ubiq_Wire_DeviceRevocation()
            wire.deviceID = revocation.device.rawValue
            wire.revokedAtMs = revocation.revokedAt
            wire.revokedBy = revocation.by.rawValue
            wire.signature = Data(revocation.signature)
            return wire
        }
        return list
    }

    /// The entries of a peer's list that are well formed, and how many were not.
    public static func entries(_ list: Ubiq_Wire_DeviceList) -> (devices: [DeviceRecord], revocations: [Revocation], refused: Int) {
        var refused = max(0, list.devices.count - maxEntries) + max(0, list.revocations.count - maxEntries)
        var devices: [DeviceRecord] = []
        for info in list.devices.prefix(maxEntries) {
            guard let id = deviceID(info.deviceID), info.name.utf8.count <= DeviceRecord.maximumNameBytes,
                  info.address.utf8.count <= DeviceRecord.maximumAddressBytes,
                  info.containers.count <= DeviceRecord.maximumContainers,
                  info.addresses.count <= DeviceRecord.maximumAddresses,
                  info.addresses.allSatisfy({ !$0.isEmpty && $0.utf8.count <= DeviceRecord.maximumAddressBytes }),
                  info.describedAtMs >= 0, info.lastSeenMs >= 0,
                  let containers = try? info.containers.map({ try ContainerID($0) }) else {
                refused += 1
                continue
            }
            // A key that is not the one the ID names is dropped: the record stays.
            let key = Array(info.publicKey)
            let matches = !key.isEmpty && key.count <= DeviceRecord.maximumPublicKeyBytes
                && DeviceID(publicKeyDigest: ChunkHasher.hash(key).bytes) == id
            devices.append(DeviceRecord(id: id, name: info.name, containers: containers, describedAt: info.describedAtMs,
                                        lastSeen: info.lastSeenMs, address: info.address, publicKey: matches ? key : [],
                                        addresses: info.addresses))
        }
        var revocations: [Revocation] = []
        for wire in list.revocations.prefix(maxEntries) {
            guard let device = deviceID(wire.deviceID), let by = deviceID(wire.revokedBy), wire.revokedAtMs >= 0,
                  !wire.signature.isEmpty, wire.signature.count <= maxSignatureBytes else {
                refused += 1
                continue
            }
            revocations.append(Revocation(device: device, revokedAt: wire.revokedAtMs, by: by, signature: Array(wire.signature)))
        }
        return (devices, revocations, refused)
    }

    private static func deviceID(_ raw: String) -> DeviceID? {
        DeviceID.isWellFormed(raw) ? DeviceID(raw) : nil
    }
}
