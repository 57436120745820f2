import Foundation
import UbiqModel

/// One device of the account, as `devices.list` answers: what it says of itself, when and
/// where a device of the account last had a connection with it, and whether it was removed.
public struct DeviceEntry: Hashable, Sendable, Codable {
    public var id: DeviceID
    public var name: String
    /// Where a device of the account last reached it (`host:port`); absent when never.
    public var address: String?
    /// Where the device says it listens for peers (`host:port`, each of its addresses).
    public var addresses: [String]
    /// When a device of the account last had a connection with it; absent when never.
    public var lastSeen: Date?
    public var containers: [ContainerID]
    /// Connected to this agent now.
    public var connected: Bool
    /// This agent's own device.
    public var thisDevice: Bool
    /// Removed from the account: every agent refuses its connections.
    public var removed: Bool
    public var removedAt: Date?
    public var removedBy: DeviceID?

    public init(id: DeviceID, name: String, address: String?, addresses: [String] = [], lastSeen: Date?, containers: [ContainerID],
                connected: Bool, thisDevice: Bool, removed: Bool = false, removedAt: Date? = nil, removedBy: DeviceID? = nil) {
        self.id = id
        self.name = name
        self.address = address
        self.addresses = addresses
        self.lastSeen = lastSeen
        self.containers = containers
        self.connected = connected
        self.thisDevice = thisDevice
        self.removed = removed
        self.removedAt = removedAt
        self.removedBy = removedBy
    }
}

/// `device.remove`: the device to remove from the account.
public struct DeviceRemoveParams: Hashable, Sendable, Codable {
    public var device: DeviceID

    public init(device: DeviceID) { self.device = device }
}

/// What `device.remove` did.
public struct DeviceRemoveResult: Hashable, Sendable, Codable {
    public var device: DeviceID
    public var removedAt: Date
    /// It was connected here; that connection has ended.
    public var wasConnected: Bool

    public init(device: DeviceID, removedAt: Date, wasConnected: Bool) {
        self.device = device
        self.removedAt = removedAt
        self.wasConnected = wasConnected
    }
}

/// What `account.rotate` did: the account's new CA generation, the devices it kept (with
/// new certificates), and the connected peers it was sent to at once; the others take it
/// from any member at their next connection.
public struct AccountRotateResult: Hashable, Sendable, Codable {
    public var generation: Int
    public var kept: [DeviceID]
    public var sentTo: [DeviceID]
    /// Devices of the account it could not keep: no public key of theirs had reached this
    /// device. They must join again.
    public var leftOut: [DeviceID]

    public init(generation: Int, kept: [DeviceID], sentTo: [DeviceID], leftOut: [DeviceID]) {
        self.generation = generation
        self.kept = kept
        self.sentTo = sentTo
        self.leftOut = leftOut
    }
}

/// What `device.invite` answers: the one-time code, valid for one join until `expiresAt`,
/// and where the joining workstation reaches this device for it.
public struct DeviceInviteResult: Hashable, Sendable, Codable {
    /// Four groups of six letters and digits.
    public var code: String
    /// The port of the join listener, open until the code is used, burned or expired.
    public var port: Int
    /// This device's listen addresses (`host:port` of the peer listener).
    public var listen: [String]
    public var expiresAt: Date
    /// This workstation's host name, for `--peer HOST:PORT`; absent where it has none.
    public var host: String?
    /// Whether the new workstation can find the invitation over mDNS: false where discovery
    /// is off here, and `--peer` is needed.
    public var discovery: Bool

    public init(code: String, port: Int, listen: [String], expiresAt: Date, host: String? = nil, discovery: Bool = true) {
        self.code = code
        self.port = port
        self.listen = listen
        self.expiresAt = expiresAt
        self.host = host
        self.discovery = discovery
    }
}
