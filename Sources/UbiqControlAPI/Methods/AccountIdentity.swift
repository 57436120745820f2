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

/// `account.leave`: sign this workstation out while the agent runs.
public struct AccountLeaveParams: Hashable, Sendable, Codable {
    /// Leave the containers' folders where they are (no later account syncs them) instead
    /// of moving them aside.
    public var keep: Bool?

    public init(keep: Bool? = nil) { self.keep = keep }
}

/// What `account.leave` did.
public struct AccountLeaveResult: Hashable, Sendable, Codable {
    /// The account this workstation left.
    public var identityToken: String
    /// Container folders moved aside, each `{container, from, to}`.
    public var movedAside: [MovedFolder]
    /// Container folders left in place, disconnected: no later account syncs them.
    public var kept: [String]

    public init(identityToken: String, movedAside: [MovedFolder], kept: [String]) {
        self.identityToken = identityToken
        self.movedAside = movedAside
        self.kept = kept
    }
}

/// A container's folder moved aside at sign-out.
public struct MovedFolder: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var from: String
    public var to: String

    public init(container: ContainerID, from: String, to: String) {
        self.container = container
        self.from = from
        self.to = to
    }
}

/// `account.create`: a new account with this workstation as its first device.
public struct AccountCreateParams: Hashable, Sendable, Codable {
    public var name: String?

    public init(name: String? = nil) { self.name = name }
}

/// `account.join`: join the account in a bundle (its text, as `ubiq account export` wrote it).
public struct AccountJoinParams: Hashable, Sendable, Codable {
    public var bundle: String
    public var name: String?
    /// The P-256 key (PEM) the device certificate is issued for: the one a join by code
    /// showed the inviting device, which lists the new device by it. Absent: a fresh key.
    public var deviceKey: String?

    public init(bundle: String, name: String? = nil, deviceKey: String? = nil) {
        self.bundle = bundle
        self.name = name
        self.deviceKey = deviceKey
    }
}

/// The identity token after a sign-in or sign-out (nil: signed out), as `account.watch`
/// answers and `account.identityChanged` notifies.
public struct AccountIdentityChange: Hashable, Sendable, Codable {
    public var identityToken: String?

    public init(identityToken: String?) { self.identityToken = identityToken }
}
