import UbiqModel

/// Bandwidth limits for one peer, beside those for all peers together: a slow link to one
/// workstation need not slow the others (`[[peer_limit]]` in the config file).
public struct PeerLimit: Hashable, Sendable {
    public var device: DeviceID
    /// The most KiB a second sent to this peer, and received from it; nil: no limit of its own.
    public var maxSendKiBPerSecond: Int?
    public var maxReceiveKiBPerSecond: Int?

    public init(device: DeviceID, maxSendKiBPerSecond: Int? = nil, maxReceiveKiBPerSecond: Int? = nil) {
        self.device = device
        self.maxSendKiBPerSecond = maxSendKiBPerSecond
        self.maxReceiveKiBPerSecond = maxReceiveKiBPerSecond
    }
}
