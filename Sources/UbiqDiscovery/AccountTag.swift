/// The account a device belongs to, as announced in mDNS TXT records (`acct=`): a short
/// lowercase hex hash of the identity token, so agents skip other accounts without connecting.
public struct AccountTag: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts 8 to 64 lowercase hex digits (the agent uses 16: see `KeyDigests.accountTag`).
    public init(_ rawValue: String) throws(DiscoveryError) {
        let bytes = rawValue.utf8
        guard (8...64).contains(bytes.count),
              bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else {
            throw DiscoveryError(.invalidValue, "account tag '\(rawValue.prefix(80))' is not 8 to 64 lowercase hex digits", key: "acct")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}
