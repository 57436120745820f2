import UbiqModel

/// The result of `account.identity`, iCloud's `ubiquityIdentityToken` plus this device.
public struct AccountIdentity: Hashable, Sendable, Codable {
    /// Hex SHA-256 of the account CA's public key; nil when signed out.
    public var identityToken: String?
    public var deviceID: DeviceID
    public var deviceName: String

    public init(identityToken: String?, deviceID: DeviceID, deviceName: String) {
        self.identityToken = identityToken
        self.deviceID = deviceID
        self.deviceName = deviceName
    }
}
