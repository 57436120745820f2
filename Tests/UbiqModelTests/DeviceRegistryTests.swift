import Testing
import UbiqModel

/// The account's devices merge the same way in any order, and removals only accumulate.
@Suite struct DeviceRegistryTests {
    let a = DeviceID("AAAA"), b = DeviceID("BBBB"), c = DeviceID("CCCC")

    func record(_ id: DeviceID, _ name: String, described: Int64, seen: Int64 = 0, at address: String = "") -> DeviceRecord {
        DeviceRecord(id: id, name: name, containers: [], describedAt: described, lastSeen: seen, address: address)
    }

    @Test func recordsMergeFieldByFieldInAnyOrder() {
        let renamed = record(a, "laptop", described: 20)
        let sighting = record(a, "old name", described: 10, seen: 500, at: "10.0.0.2:22000")
        let older = record(a, "old name", described: 10, seen: 100, at: "10.0.0.9:22000")
        let orders = [[renamed, sighting, older], [older, sighting, renamed], [sighting, older, renamed]]
        let results = orders.map { order in
            var registry = DeviceRegistry()
            for record in order { _ = registry.merge([record]) }
            return registry
        }
        #expect(results.allSatisfy { $0 == results[0] })
        let merged = results[0].devices[a]
        #expect(merged?.name == "laptop" && merged?.describedAt == 20)
        #expect(merged?.lastSeen == 500 && merged?.address == "10.0.0.2:22000")
    }

    /// Addresses and public keys: the later description's addresses, a tie settled the same
    /// way in either order, and a known key kept whichever record brings it.
    @Test func addressesFollowTheDescriptionAndKeysStay() {
        var first = record(a, "desk", described: 10)
        first.addresses = ["192.0.2.1:22100"]
        first.publicKey = [1, 2, 3]
        var later = record(a, "desk", described: 11)
        later.addresses = ["192.0.2.7:22100", "[2001:db8::7]:22100"]
        var tie = record(a, "desk", described: 11)
        tie.addresses = ["192.0.2.9:22100"]
        let orders = [[first, later, tie], [tie, later, first], [later, tie, first]]
        let merged = orders.map { order in
            var registry = DeviceRegistry()
            for record in order { _ = registry.merge([record]) }
            return registry.devices[a]
        }
        #expect(merged.allSatisfy { $0 == merged[0] })
        #expect(merged[0]?.addresses == ["192.0.2.9:22100"] && merged[0]?.publicKey == [1, 2, 3])
    }

    @Test func aMergeSaysOnlyWhatIsNews() {
        var registry = DeviceRegistry(devices: [record(a, "desk", described: 5)])
        #expect(registry.merge([record(a, "desk", described: 5)]).isEmpty)
        #expect(registry.merge([record(a, "desk", described: 4, seen: 0)]).isEmpty)
        #expect(registry.merge([record(a, "desk", described: 5, seen: 7, at: "h:1"), record(b, "laptop", described: 1)]).map(\.id) == [a, b])
        // Equal times: every device picks the larger value.
        var other = DeviceRegistry(devices: [record(c, "zeta", described: 9)])
        _ = other.merge([record(c, "alpha", described: 9)])
        #expect(other.devices[c]?.name == "zeta")
    }

    @Test func revocationsAccumulateAndTheEarlierIsKept() {
        let early = Revocation(device: c, revokedAt: 100, by: a, signature: [1])
        let late = Revocation(device: c, revokedAt: 200, by: b, signature: [2])
        var one = DeviceRegistry(), two = DeviceRegistry()
        #expect(one.merge([late]).count == 1)
        #expect(one.merge([early]) == [early])
        #expect(two.merge([early]) == [early])
        #expect(two.merge([late]).isEmpty)
        #expect(one == two && one.isRevoked(c) && !one.isRevoked(a))
    }

    @Test func aPeerCannotGrowTheRegistryWithoutBound() {
        var registry = DeviceRegistry()
        let many = (0..<(DeviceRegistry.maximumDevices + 50)).map { record(DeviceID("D\($0)"), "d", described: 1) }
        #expect(registry.merge(many).count == DeviceRegistry.maximumDevices)
        // Known devices still take news.
        #expect(registry.merge([record(DeviceID("D0"), "renamed", described: 2)]).count == 1)
    }
}
