import UbiqModel

/// What an agent announces over mDNS (DESIGN.md §4): a `_ubiq._tcp` service named by its
/// device ID, on the port it accepts peers on, with TXT `v=` (protocol versions), `dev=` (device
/// ID) and `acct=` (account tag). Every field is validated on creation, so a record decoded from
/// the network is one ubiq can trust to be well-formed (not to be honest: TLS checks that).
public struct DiscoveryRecord: Hashable, Sendable {
    public static let serviceType = "_ubiq._tcp"
    /// Longest device ID accepted: an instance name is one DNS label (63 bytes).
    public static let maximumDeviceIDLength = 63
    /// Most protocol versions accepted in `v=`.
    public static let maximumVersionCount = 32

    public let deviceID: DeviceID
    public let accountTag: AccountTag
    /// Distinct, each at least 1, in the order given.
    public let protocolVersions: [UInt32]
    public let port: UInt16
    /// An open invitation to join the account (`join=PORT:HINT`), while there is one.
    public let invitation: Invitation?

    /// Where a member takes joins for an open invitation, and a hint of its code (a short
    /// hash, never the code) so that a joiner tries only the member whose code it holds.
    public struct Invitation: Hashable, Sendable {
        public let port: UInt16
        /// 8 lower-case hex digits.
        public let hint: String

        public init(port: UInt16, hint: String) throws(DiscoveryError) {
            guard port != 0, hint.utf8.count == 8, hint.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw DiscoveryError(.invalidValue, "an invitation is a port and 8 hex digits", key: "join")
            }
            self.port = port
            self.hint = hint
        }
    }

    /// The DNS-SD instance name: the device ID.
    public var instanceName: String { deviceID.rawValue }

    public init(deviceID: DeviceID, accountTag: AccountTag, protocolVersions: [UInt32], port: UInt16,
                invitation: Invitation? = nil) throws(DiscoveryError) {
        try Self.checkDeviceID(deviceID.rawValue)
        guard !protocolVersions.isEmpty, protocolVersions.count <= Self.maximumVersionCount,
              !protocolVersions.contains(0), Set(protocolVersions).count == protocolVersions.count
        else {
            throw DiscoveryError(.invalidValue, "protocol versions \(protocolVersions.prefix(40)) must be 1 to \(Self.maximumVersionCount) distinct numbers above 0", key: "v")
        }
        guard port != 0 else { throw DiscoveryError(.invalidValue, "port 0 cannot be announced; give the port the agent listens on") }
        self.deviceID = deviceID
        self.accountTag = accountTag
        self.protocolVersions = protocolVersions
        self.port = port
        self.invitation = invitation
    }

    /// The same record on another port.
    public func with(port: UInt16) throws(DiscoveryError) -> DiscoveryRecord {
        try DiscoveryRecord(deviceID: deviceID, accountTag: accountTag, protocolVersions: protocolVersions, port: port, invitation: invitation)
    }

    /// The same record with an invitation open, or none.
    public func with(invitation: Invitation?) -> DiscoveryRecord {
        // Every other field was checked when this record was made.
        (try? DiscoveryRecord(deviceID: deviceID, accountTag: accountTag, protocolVersions: protocolVersions, port: port,
                              invitation: invitation)) ?? self
    }

    /// Device IDs as `DeviceID(publicKeyDigest:)` makes them: base32 (`A`–`Z`, `2`–`7`) in
    /// groups joined by single dashes, at most one DNS label long.
    static func checkDeviceID(_ raw: String) throws(DiscoveryError) {
        guard DeviceID.isWellFormed(raw, maximumLength: maximumDeviceIDLength) else {
            throw DiscoveryError(.invalidValue, "device ID '\(raw.prefix(80))' is not 1 to \(maximumDeviceIDLength) base32 characters in dash-separated groups", key: "dev")
        }
    }
}
