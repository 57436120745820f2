/// Why discovery could not start or a record was refused. Callers and tests compare `code`;
/// `reason` is for people and says what still works or what to fix.
public struct DiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// avahi-daemon (or the D-Bus system bus it is reached through) is not there; discovery
        /// is off and static peers from the configuration still work.
        case unavailable
        /// avahi answered a request with an error other than "not running".
        case serviceFailed
        /// A TXT record is not a well-formed sequence of length-prefixed strings, or is too long.
        case malformedTXT
        /// A TXT record lacks one of the keys ubiq needs (`v`, `dev`, `acct`).
        case missingKey
        /// A key or field has a value ubiq does not accept.
        case invalidValue
        /// The advertiser or browser was closed before the request ran.
        case closed
    }

    public let code: Code
    public let reason: String
    /// The TXT key at fault, for `missingKey` and `invalidValue` of a TXT field.
    public let key: String?

    public init(_ code: Code, _ reason: String, key: String? = nil) {
        self.code = code
        self.reason = reason
        self.key = key
    }

    public var description: String { reason }
}
