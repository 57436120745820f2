import Foundation
import Testing
import UbiqModel
@testable import UbiqWire

@Suite struct KeyValueMappingTests {
    let entry = KeyValueEntry(key: "level", value: .dictionary(["n": .integer(13), "at": .date(secondsSince1970: 1.5)]),
                              version: VersionVector([DeviceID("A"): 2, DeviceID("B"): 1]),
                              valueVersion: VersionVector([DeviceID("B"): 1]),
                              timestamp: HybridTimestamp(wall: 1_795_000_000_000, logical: 3), modifiedBy: DeviceID("B"))

    @Test func entriesAndTombstonesRoundTrip() throws {
        #expect(try KeyValueMapping.entry(KeyValueMapping.wireEntry(entry)) == entry)
        var removed = entry
        removed.value = nil
        #expect(try KeyValueMapping.entry(KeyValueMapping.wireEntry(removed)) == removed)
        let wire = try Ubiq_Wire_Envelope(serializedBytes: try Ubiq_Wire_Envelope(.keyValueUpdate(.with {
            $0.storeID = "TEAMID.com.example.game"
            $0.entries = [KeyValueMapping.wireEntry(entry)]
        })).serializedBytes() as [UInt8])
        guard case .keyValueUpdate(let update)? = wire.message else { Issue.record("not an update"); return }
        #expect(try KeyValueMapping.entry(update.entries[0]) == entry)
    }

    @Test(arguments: ["empty key", "long key", "NUL key", "bad value", "removed with value", "no version", "zero counter",
                      "zero value counter", "no author", "value newer"])
    func hostileEntriesAreRefused(_ flaw: String) {
        var wire = KeyValueMapping.wireEntry(entry)
        switch flaw {
        case "empty key": wire.key = ""
        case "long key": wire.key = String(repeating: "k", count: KeyValueMapping.maxKeyBytes + 1)
        case "NUL key": wire.key = "a\u{0}b"
        case "bad value": wire.value = Data([9, 5])
        case "removed with value": wire.removed = true
        case "no version": wire.version = []
        case "zero counter": wire.version = ItemMapping.counters(VersionVector()) + [.with { $0.device = "A"; $0.value = 0 }]
        case "zero value counter": wire.valueVersion = [.with { $0.device = "B"; $0.value = 0 }]
        case "no author": wire.modifiedBy = ""
        default: wire.valueVersion = ItemMapping.counters(VersionVector([DeviceID("C"): 1]))
        }
        #expect(throws: WireError.self) { try KeyValueMapping.entry(wire) }
    }

    @Test func theHandshakeAgreesOnSharedStoresOnly() throws {
        func hello(_ device: String, stores: [String]) -> Ubiq_Wire_Hello {
            .with {
                $0.protocolVersions = [1]
                $0.deviceID = device
                $0.keyValueStores = stores.map { id in .with { $0.storeID = id; $0.indexID = 7 } }
            }
        }
        let agreement = try Handshake.agree(ours: hello("A", stores: ["TEAMID.a.b", "TEAMID.c.d"]),
                                            theirs: hello("B", stores: ["TEAMID.c.d", "TEAMID.e.f", "not an id"]),
                                            authenticatedDevice: DeviceID("B"))
        #expect(agreement.stores.keys.map(\.rawValue) == ["TEAMID.c.d"])
        #expect(agreement.stores.values.first?.indexID == 7)
    }
}
