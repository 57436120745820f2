/// The DNS-SD TXT record format (RFC 6763 §6): a sequence of strings, each one length byte
/// followed by up to 255 bytes of `key=value`. Pure, so what arrives from the network can be
/// checked without a daemon.
///
/// ```
/// +-----+---------------+-----+---------------+
/// | len | key=value ... | len | key=value ... |  ...
/// +-----+---------------+-----+---------------+
/// ```
public enum TXTRecord {
    /// One attribute; `value` is nil for a key given without `=` (a boolean attribute, §6.4).
    public struct Entry: Hashable, Sendable {
        public let key: String
        public let value: [UInt8]?

        public init(key: String, value: [UInt8]?) {
            self.key = key
            self.value = value
        }
    }

    /// The largest TXT record accepted from the network: RFC 6763 §6.2 advises against
    /// records above 1300 bytes, and ubiq's own is under 100.
    public static let maximumLength = 1300

    /// Encodes entries in order. Keys must be 1 to 9 printable ASCII characters other than
    /// `=`; each `key=value` string must fit in 255 bytes.
    public static func encode(_ entries: [Entry]) throws(DiscoveryError) -> [UInt8] {
        var out: [UInt8] = []
        for entry in entries {
            guard isValidKey(Array(entry.key.utf8)) else {
                throw DiscoveryError(.invalidValue, "TXT key '\(entry.key)' is not 1 to 9 printable ASCII characters without '='", key: entry.key)
            }
            var string = Array(entry.key.utf8)
            if let value = entry.value {
                string.append(UInt8(ascii: "="))
                string += value
            }
            guard string.count <= 255 else {
                throw DiscoveryError(.invalidValue, "TXT entry '\(entry.key)' is \(string.count) bytes; at most 255 fit", key: entry.key)
            }
            out.append(UInt8(string.count))
            out += string
        }
        // An empty TXT record is one empty string (§6.1).
        return out.isEmpty ? [0] : out
    }

    /// Splits a TXT record into entries, in order. Empty strings and strings with an empty key
    /// are skipped as §6.4 says; a length running past the end, a key with bytes outside
    /// printable ASCII or a record above `maximumLength` make the whole record malformed.
    public static func decode(_ bytes: [UInt8]) throws(DiscoveryError) -> [Entry] {
        guard bytes.count <= maximumLength else {
            throw DiscoveryError(.malformedTXT, "TXT record is \(bytes.count) bytes; at most \(maximumLength) are accepted")
        }
        var entries: [Entry] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            index += 1
            guard index + length <= bytes.count else {
                throw DiscoveryError(.malformedTXT, "TXT string of \(length) bytes at offset \(index - 1) runs past the end of the \(bytes.count)-byte record")
            }
            let string = bytes[index..<index + length]
            index += length
            let equals = string.firstIndex(of: UInt8(ascii: "="))
            let key = Array(string[string.startIndex..<(equals ?? string.endIndex)])
            if key.isEmpty { continue }
            guard key.allSatisfy(isPrintableASCII) else {
                throw DiscoveryError(.malformedTXT, "TXT key at offset \(index - length - 1) has bytes outside printable ASCII")
            }
            let value = equals.map { Array(string[($0 + 1)...]) }
            entries.append(Entry(key: String(decoding: key, as: UTF8.self), value: value))
        }
        return entries
    }

    /// The value of the first entry whose key matches case-insensitively (§6.4: later
    /// repetitions are ignored); `.some(nil)` when the key is present without `=`.
    public static func firstValue(of key: String, in entries: [Entry]) -> [UInt8]?? {
        let wanted = key.lowercased()
        guard let entry = entries.first(where: { $0.key.lowercased() == wanted }) else { return nil }
        return .some(entry.value)
    }

    static func isValidKey(_ key: [UInt8]) -> Bool {
        (1...9).contains(key.count) && key.allSatisfy { isPrintableASCII($0) && $0 != UInt8(ascii: "=") }
    }

    static func isPrintableASCII(_ byte: UInt8) -> Bool { (0x20...0x7E).contains(byte) }
}
