import Logging
import Testing
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTestSupport

/// The account's devices over a real SQLite index: what peers pass on is merged and kept,
/// revocations the account did not sign are left out, and a removal is told at once.
@Suite struct AccountDevicesTests {
    let dir = try! TempDirectory()
    let me = DeviceID("MEME"), peer = DeviceID("PEER"), lost = DeviceID("LOST")
    /// Stands in for the account's signature check, which `AccountSignaturesTests` shows.
    let verify: @Sendable (Revocation) -> Bool = { $0.signature == [1] }

    func open(name: String = "desk") throws -> AccountDevices {
        try AccountDevices(me: DeviceRecord(id: me, name: name, containers: [], describedAt: 10),
                           index: try SyncIndex(path: dir.appending("index.sqlite")), verify: verify, logger: Logger(label: "test"))
    }

    @Test func peersListsAreMergedKeptAndUnsignedRemovalsLeftOut() async throws {
        let devices = try open()
        let removals = devices.removals()
        await devices.receive(devices: [DeviceRecord(id: lost, name: "laptop", containers: [], describedAt: 3)],
                              revocations: [Revocation(device: lost, revokedAt: 5, by: peer, signature: [9])], from: peer)
        #expect(!devices.isRevoked(lost))
        #expect(await devices.current.devices[lost]?.name == "laptop")

        await devices.receive(devices: [], revocations: [Revocation(device: lost, revokedAt: 6, by: peer, signature: [1])], from: peer)
        #expect(devices.isRevoked(lost))
        var iterator = removals.makeAsyncIterator()
        #expect(await iterator.next() == [lost])

        await devices.seen(peer, address: "192.0.2.7:22000", at: 99)
        // A new start reads it all back, with this device's new description.
        let reopened = try open(name: "desk renamed")
        let registry = await reopened.current
        #expect(reopened.isRevoked(lost) && registry.devices[me]?.name == "desk renamed")
        #expect(registry.devices[peer]?.lastSeen == 99 && registry.devices[peer]?.address == "192.0.2.7:22000")
    }

    @Test func aDeviceCannotRemoveItselfAndAnUnsignedRemovalIsRefused() async throws {
        let devices = try open()
        await #expect(throws: DeviceRemovalError.self) {
            try await devices.revoke(Revocation(device: me, revokedAt: 1, by: me, signature: [1]))
        }
        await #expect(throws: DeviceRemovalError.self) {
            try await devices.revoke(Revocation(device: lost, revokedAt: 1, by: me, signature: [2]))
        }
        #expect(!devices.isRevoked(lost) && !devices.isRevoked(me))
        try await devices.revoke(Revocation(device: lost, revokedAt: 1, by: me, signature: [1]))
        #expect(devices.isRevoked(lost))
    }
}
