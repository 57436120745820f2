/// A device removed from the account: signed with the account's key, so that any device can
/// check it and pass it on, and no device can make one without that key. Every agent refuses
/// a removed device's connections. Revocations only accumulate: none is ever taken back.
public struct Revocation: Sendable, Hashable, Codable {
    public var device: DeviceID
    /// When it was removed (milliseconds since 1970).
    public var revokedAt: Int64
    /// The device that removed it.
    public var by: DeviceID
    /// The account key's ECDSA P-256 signature (DER) over ``signedMessage(account:)``.
    public var signature: [UInt8]

    public init(device: DeviceID, revokedAt: Int64, by: DeviceID, signature: [UInt8]) {
        self.device = device
        self.revokedAt = revokedAt
        self.by = by
        self.signature = signature
    }

    /// The bytes the account signs: what is revoked, in which account, when and by whom, so
    /// that a signature cannot be moved to another device, account or time.
    public func signedMessage(account identityToken: String) -> [UInt8] {
        Array("ubiq-revocation/1\n\(identityToken)\n\(device.rawValue)\n\(revokedAt)\n\(by.rawValue)".utf8)
    }

    /// Of two revocations of one device, the one every device keeps: the earlier.
    public func preferred(over other: Revocation) -> Bool {
        if revokedAt != other.revokedAt { return revokedAt < other.revokedAt }
        if by != other.by { return by < other.by }
        return signature.lexicographicallyPrecedes(other.signature)
    }
}
