import Foundation
import UbiqModel

/// One known peer device, in `peers.list` and ``AgentStatus``.
public struct PeerStatus: Hashable, Sendable, Codable {
    public var deviceID: DeviceID
    public var name: String
    /// `host:port` last used or configured.
    public var address: String
    public var connected: Bool
    /// When the current connection started.
    public var since: Date?
    public var bytesSent: Int64
    public var bytesReceived: Int64
    /// Why the last connection attempt or session ended, if it failed.
    public var lastError: String?

    public init(
        deviceID: DeviceID, name: String, address: String, connected: Bool, since: Date? = nil,
        bytesSent: Int64 = 0, bytesReceived: Int64 = 0, lastError: String? = nil
    ) {
        self.deviceID = deviceID
        self.name = name
        self.address = address
        self.connected = connected
        self.since = since
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.lastError = lastError
    }
}
