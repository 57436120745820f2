import UbiqModel

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
