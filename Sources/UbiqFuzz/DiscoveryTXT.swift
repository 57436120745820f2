import UbiqDiscovery
import UbiqModel

extension FuzzTarget {
    /// A TXT record any host on the LAN may announce for the ubiq service, as the browser
    /// reads it: the record format, then the `v`, `dev` and `acct` keys.
    public static let discoveryTXT = FuzzTarget(
        name: "discovery-txt",
        summary: "mDNS TXT records of peers on the LAN",
        testOneInput: { data, size in
            DiscoveryTXT.run(UnsafeRawBufferPointer(fuzzInput: data, size))
            return 0
        },
        seeds: { try DiscoveryTXT.seeds() })
}

enum DiscoveryTXT {
    static func run(_ input: UnsafeRawBufferPointer) {
        guard let record = try? DiscoveryRecord.decode(txt: Array(input), port: 22100) else { return }
        guard (try? DiscoveryRecord.decode(txt: record.encodedTXT(), port: 22100)) == record else {
            fatalError("an accepted TXT record changes when announced again")
        }
    }

    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        let record = try DiscoveryRecord(deviceID: DeviceID("MFRGG2LT-MFRGG2LT-MFRGG2LT-MFRGG2LT"),
                                         accountTag: AccountTag("0123456789abcdef"), protocolVersions: [1, 2], port: 22100)
        let extra = try TXTRecord.encode([TXTRecord.Entry(key: "txtvers", value: Array("1".utf8)), TXTRecord.Entry(key: "flag", value: nil)])
        let inviting = record.with(invitation: try DiscoveryRecord.Invitation(port: 41235, hint: "0a1b2c3d"))
        return [("announced", record.encodedTXT()), ("with-other-keys", extra + record.encodedTXT()), ("inviting", inviting.encodedTXT())]
    }
}
