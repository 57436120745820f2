import Foundation
import Testing
import UbiqChunking
import UbiqModel
import UbiqWire

/// Device lists cross the wire whole; a malformed entry is left out, not the list.
@Suite struct DeviceListMappingTests {
    let desk = DeviceID("AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD"), laptop = DeviceID("EEEEEEEE-FFFFFFFF-GGGGGGGG-HHHHHHHH")

    @Test func aListRoundTrips() throws {
        let records = [
            DeviceRecord(id: desk, name: "desk", containers: [try ContainerID("TEAMID.com.example.notes")], describedAt: 5, lastSeen: 9,
                         address: "192.0.2.1:22000"),
            DeviceRecord(id: laptop, name: "laptop", containers: [], describedAt: 7, addresses: ["192.0.2.7:22100", "[2001:db8::7]:22100"]),
        ]
        let revocations = [Revocation(device: laptop, revokedAt: 11, by: desk, signature: [1, 2, 3])]
        let wire = try Ubiq_Wire_DeviceList(serializedBytes: DeviceListMapping.list(records, revocations: revocations).serializedData())
        let back = DeviceListMapping.entries(wire)
        #expect(back.devices == records && back.revocations == revocations && back.refused == 0)
    }

    @Test func malformedEntriesAreLeftOutAndCounted() {
        var list = DeviceListMapping.list([DeviceRecord(id: desk, name: "desk", containers: [], describedAt: 1)],
                                          revocations: [Revocation(device: laptop, revokedAt: 1, by: desk, signature: [1])])
        var badID = list.devices[0]
        badID.deviceID = "../../etc"
        var longName = list.devices[0]
        longName.name = String(repeating: "n", count: 256)
        var badContainer = list.devices[0]
        badContainer.containers = ["not a container"]
        var negative = list.devices[0]
        negative.lastSeenMs = -1
        var manyAddresses = list.devices[0]
        manyAddresses.addresses = (0...DeviceRecord.maximumAddresses).map { "192.0.2.\($0):22100" }
        list.devices += [badID, longName, badContainer, negative, manyAddresses]
        var unsigned = list.revocations[0]
        unsigned.signature = Data()
        var huge = list.revocations[0]
        huge.signature = Data(count: 4096)
        list.revocations += [unsigned, huge]
        let entries = DeviceListMapping.entries(list)
        #expect(entries.devices.map(\.id) == [desk] && entries.revocations.count == 1 && entries.refused == 7)
    }

    /// A public key is kept only when it is the one the device ID names.
    @Test func aPublicKeyNotTheDevicesIsDropped() {
        let key = Array("a device's key".utf8)
        let owner = DeviceID(publicKeyDigest: ChunkHasher.hash(key).bytes)
        let list = DeviceListMapping.list([DeviceRecord(id: owner, name: "desk", containers: [], describedAt: 1, publicKey: key),
                                           DeviceRecord(id: desk, name: "other", containers: [], describedAt: 1, publicKey: key)],
                                          revocations: [])
        let entries = DeviceListMapping.entries(list)
        #expect(entries.devices.first { $0.id == owner }?.publicKey == key)
        #expect(entries.devices.first { $0.id == desk }?.publicKey == [])
    }
}
