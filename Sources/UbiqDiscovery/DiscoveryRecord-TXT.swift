import UbiqModel

extension DiscoveryRecord {
    /// The TXT record to announce: `v=1,2`, `dev=<device ID>`, `acct=<account tag>`, and
    /// `join=<port>:<hint>` while an invitation is open.
    public func encodedTXT() -> [UInt8] {
        var entries = [
            TXTRecord.Entry(key: "v", value: Array(protocolVersions.map(String.init).joined(separator: ",").utf8)),
            TXTRecord.Entry(key: "dev", value: Array(deviceID.rawValue.utf8)),
            TXTRecord.Entry(key: "acct", value: Array(accountTag.rawValue.utf8)),
        ]
        if let invitation {
            entries.append(TXTRecord.Entry(key: "join", value: Array("\(invitation.port):\(invitation.hint)".utf8)))
        }
        // Every field was validated in init and fits easily in 255 bytes.
        return (try? TXTRecord.encode(entries)) ?? [0]
    }

    /// Builds a record from a resolved service: its TXT record and its SRV port. Unknown keys
    /// are ignored (newer agents may add some); a missing or malformed `v`, `dev` or `acct`
    /// refuses the record with a reason naming the key.
    public static func decode(txt: [UInt8], port: UInt16) throws(DiscoveryError) -> DiscoveryRecord {
        let entries = try TXTRecord.decode(txt)
        let versions = try parseVersions(try requiredValue("v", in: entries))
        let device = try requiredValue("dev", in: entries)
        let account = try AccountTag(try requiredValue("acct", in: entries))
        return try DiscoveryRecord(deviceID: DeviceID(device), accountTag: account, protocolVersions: versions, port: port,
                                   invitation: invitation(in: entries))
    }

    /// `join=<port>:<hint>`; a malformed one is left out, never the record.
    static func invitation(in entries: [TXTRecord.Entry]) -> Invitation? {
        guard let value = TXTRecord.firstValue(of: "join", in: entries) ?? nil, value.count <= 32 else { return nil }
        let parts = String(decoding: value, as: UTF8.self).split(separator: ":")
        guard parts.count == 2, parts[0].count <= 5, parts[0].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = UInt16(parts[0]) else { return nil }
        return try? Invitation(port: port, hint: String(parts[1]))
    }

    static func requiredValue(_ key: String, in entries: [TXTRecord.Entry]) throws(DiscoveryError) -> String {
        guard let present = TXTRecord.firstValue(of: key, in: entries) else {
            throw DiscoveryError(.missingKey, "TXT record has no '\(key)=' key", key: key)
        }
        guard let value = present, !value.isEmpty else {
            throw DiscoveryError(.invalidValue, "TXT key '\(key)' has no value", key: key)
        }
        guard value.count <= 128, value.allSatisfy(TXTRecord.isPrintableASCII) else {
            throw DiscoveryError(.invalidValue, "TXT key '\(key)' has a value over 128 bytes or with bytes outside printable ASCII", key: key)
        }
        return String(decoding: value, as: UTF8.self)
    }

    /// `v=` is decimal numbers separated by commas, without signs, spaces or leading zeros.
    static func parseVersions(_ text: String) throws(DiscoveryError) -> [UInt32] {
        var versions: [UInt32] = []
        for field in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !field.isEmpty, field.count <= 10, field.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  field.first != "0", let version = UInt32(field)
            else {
                throw DiscoveryError(.invalidValue, "TXT key 'v' is '\(text)'; expected protocol versions such as '1' or '1,2'", key: "v")
            }
            versions.append(version)
        }
        return versions
    }
}
