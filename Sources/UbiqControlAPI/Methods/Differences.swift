import UbiqModel

/// One path where a peer's version is not applied here (a send-only container's differences).
public struct DifferenceEntry: Hashable, Sendable, Codable {
    public var path: String
    /// This device's version in display form; absent where it has none.
    public var localVersion: String?
    public var peerVersion: String
    public var peerModifiedBy: DeviceID
    /// The peer deleted the path.
    public var peerDeleted: Bool

    public init(path: String, localVersion: String?, peerVersion: String, peerModifiedBy: DeviceID, peerDeleted: Bool) {
        self.path = path
        self.localVersion = localVersion
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
