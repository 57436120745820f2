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

    public init(instance: String, record: DiscoveryRecord, host: String, addresses: [String]) {
        self.instance = instance
        self.deviceID = record.deviceID
        self.accountTag = record.accountTag
        self.protocolVersions = record.protocolVersions
        self.host = host
        self.port = record.port
        self.addresses = addresses
    }
}

/// What a `ServiceBrowser` reports, in order, for each instance: `found`, then any number of
/// `changed`, then `lost`; after `lost` an instance that comes back is `found` again.
public enum DiscoveryEvent: Hashable, Sendable {
    /// A peer was resolved to a valid record and at least one address.
    case found(DiscoveredPeer)
    /// A peer already found now has another port, TXT record, host or address set.
    case changed(DiscoveredPeer)
    /// A peer left (its service was withdrawn or expired, or its record became invalid or
    /// filtered out). Carries the peer as last reported.
    case lost(DiscoveredPeer)
    /// The browser stopped because avahi failed or went away; the last event of the stream,
    /// after `lost` for every peer still known. Start a new browser to try again.
    case stopped(DiscoveryError)
}

/// Which resolved services a `ServiceBrowser` reports. Services it drops are logged at debug
/// level with the reason.
public struct DiscoveryFilter: Hashable, Sendable {
    /// Only peers announcing this account tag; nil reports every account.
    public var accountTag: AccountTag?
    /// Never this device (the agent's own announcement); nil drops no device.
    public var excludedDevice: DeviceID?

    public init(accountTag: AccountTag? = nil, excludedDevice: DeviceID? = nil) {
        self.accountTag = accountTag
        self.excludedDevice = excludedDevice
    }

    /// Reports everything, the agent's own service included.
    public static let none = DiscoveryFilter()

    /// Why `record` is dropped, or nil when it is reported.
    public func rejection(of record: DiscoveryRecord) -> String? {
        if let accountTag, record.accountTag != accountTag {
            return "another account (acct=\(record.accountTag))"
        }
        if let excludedDevice, record.deviceID == excludedDevice { return "this device's own service" }
        return nil
    }
}
