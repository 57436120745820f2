import UbiqModel

/// Another agent seen on the LAN: who it says it is (from its TXT record) and where to reach
/// it. The claims are only hints for connecting; the TLS handshake proves the device.
public struct DiscoveredPeer: Hashable, Sendable {
    /// The DNS-SD instance name (normally the device ID; avahi appends " #2" on a name clash).
    public let instance: String
    public let deviceID: DeviceID
    public let accountTag: AccountTag
    public let protocolVersions: [UInt32]
    /// The host name from the SRV record, e.g. `h1.local.`.
    public let host: String
    public let port: UInt16
    /// The host's IPv4 and IPv6 addresses as text, sorted; link-local IPv6 addresses carry
    /// their interface (`fe80::1%eth0`). Never empty.
    public let addresses: [String]
    /// The invitation it announces while one is open.
    public let invitation: DiscoveryRecord.Invitation?

    public init(instance: String, record: DiscoveryRecord, host: String, addresses: [String]) {
        self.instance = instance
        self.deviceID = record.deviceID
        self.accountTag = record.accountTag
        self.protocolVersions = record.protocolVersions
        self.host = host
        self.port = record.port
        self.addresses = addresses
        self.invitation = record.invitation
    }
}
