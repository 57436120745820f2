/// A device's stable name: a short base32 form of the SHA-256 of its public key.
///
/// Ordering is used to break ties deterministically (conflict choice, HLC ties), so every
/// device reaches the same answer without talking.
public struct DeviceID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Derives the ID from a SHA-256 digest of the device's public key: the first 20 bytes in
    /// RFC 4648 base32 without padding, grouped by dashes for reading aloud.
    public init(publicKeyDigest digest: some Sequence<UInt8>) {
        let encoded = Base32.encode(Array(digest.prefix(20)))
        var groups: [Substring] = []
        var rest = Substring(encoded)
        while !rest.isEmpty {
            groups.append(rest.prefix(8))
            rest = rest.dropFirst(8)
        }
        self.rawValue = groups.joined(separator: "-")
    }

    public var description: String { rawValue }
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether `raw` has the form ``init(publicKeyDigest:)`` gives: base32 (`A`–`Z`, `2`–`7`)
    /// in groups joined by single dashes, 1 to `maximumLength` bytes. For IDs that arrive from
    /// the network, before they are used as names.
    public static func isWellFormed(_ raw: String, maximumLength: Int = 63) -> Bool {
        let bytes = Array(raw.utf8)
        let dash = UInt8(ascii: "-")
        let base32 = { (b: UInt8) in (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) || (UInt8(ascii: "2")...UInt8(ascii: "7")).contains(b) }
        return (1...maximumLength).contains(bytes.count) && bytes.allSatisfy({ base32($0) || $0 == dash })
            && bytes.first != dash && bytes.last != dash && !zip(bytes, bytes.dropFirst()).contains(where: { $0 == dash && $1 == dash })
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// RFC 4648 base32 (upper case, no padding).
enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    static func encode(_ bytes: [UInt8]) -> String {
        var out = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return out
    }
}
