/// One version of a file as the devices fetching it name it among themselves: where it is,
/// and the content key of its chunk list (`ContentKey`), so two versions at one path are
/// never mixed up.
public struct SwarmVersion: Hashable, Sendable, CustomStringConvertible {
    public var container: ContainerID
    public var path: RelativePath
    /// 64 lowercase hex digits.
    public var contentKey: String
    /// The file's whole size in bytes.
    public var size: UInt64

    public init(container: ContainerID, path: RelativePath, contentKey: String, size: UInt64) {
        self.container = container
        self.path = path
        self.contentKey = contentKey
        self.size = size
    }

    public var description: String { "\(container)/\(path) (\(contentKey.prefix(12)))" }
}

/// What a device holds of a version it is assembling: told to its peers as it grows
/// (`held`: new verified bytes since the last word; `claimed`: bytes it has asked for since),
/// or that it gave the version up.
public struct SwarmProgress: Sendable, Equatable {
    public var version: SwarmVersion
    public var held: RangeSet<UInt64>
    /// Asked of peers and not held yet: soon less rare.
    public var claimed: RangeSet<UInt64>
    /// The device holds none of it any more: the attempt stopped.
    public var ended: Bool

    public init(version: SwarmVersion, held: RangeSet<UInt64>, claimed: RangeSet<UInt64> = RangeSet(), ended: Bool = false) {
        self.version = version
        self.held = held
        self.claimed = claimed
        self.ended = ended
    }
}
