import UbiqModel

/// One path where this device and its peers differ on purpose: a peer's change a send-only
/// container has not applied, or a change made here that a receive-only container has not sent.
public struct DifferenceEntry: Hashable, Sendable, Codable {
    public var path: String
    /// True where the change held back is this device's (receive-only), false where it is a
    /// peer's (send-only).
    public var changedHere: Bool
    /// This device's version in display form; absent where it has none (and for a change
    /// made here, which has no version until it is sent).
    public var localVersion: String?
    /// This device deleted the path (receive-only).
    public var localDeleted: Bool
    /// The size of what is here now, for a file changed here.
    public var localSize: Int64?
    /// The peers' version in display form; absent where they have none (made here).
    public var peerVersion: String?
    public var peerModifiedBy: DeviceID?
    /// The peer deleted the path.
    public var peerDeleted: Bool

    public init(path: String, changedHere: Bool = false, localVersion: String?, localDeleted: Bool = false, localSize: Int64? = nil,
                peerVersion: String?, peerModifiedBy: DeviceID?, peerDeleted: Bool) {
        self.path = path
        self.changedHere = changedHere
        self.localVersion = localVersion
        self.localDeleted = localDeleted
        self.localSize = localSize
        self.peerVersion = peerVersion
        self.peerModifiedBy = peerModifiedBy
        self.peerDeleted = peerDeleted
    }
}

/// The result of `container.override`: the paths whose peers now take this device's version.
public struct OverrideResult: Hashable, Sendable, Codable {
    public var overridden: [String]

    public init(overridden: [String]) { self.overridden = overridden }
}

/// The result of `container.revert`: the paths that hold the account's version again, and
/// those that could not be put back, with why (try again; a client's write lease, or peers
/// that hold the chunks not connected).
public struct RevertResult: Hashable, Sendable, Codable {
    public var reverted: [String]
    public var failed: [RevertFailure]

    public init(reverted: [String], failed: [RevertFailure]) {
        self.reverted = reverted
        self.failed = failed
    }
}

/// A path `container.revert` could not put back.
public struct RevertFailure: Hashable, Sendable, Codable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
