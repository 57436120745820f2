import UbiqModel

/// A mass deletion held for a person, in a container's status: how many files, since when,
/// and the first few paths.
public struct HeldDeletionsStatus: Hashable, Sendable, Codable {
    public static let sampleSize = 10

    public var count: Int
    /// Milliseconds since 1970.
    public var since: Int64
    public var sample: [String]

    public init(count: Int, since: Int64, sample: [String]) {
        self.count = count
        self.since = since
        self.sample = sample
    }
}

/// The answer of `deletions.list`: every held path (files and the folders that go with them).
public struct DeletionsListResult: Hashable, Sendable, Codable {
    public var container: ContainerID
    /// Files held; 0 when nothing is.
    public var count: Int
    public var since: Int64?
    public var paths: [String]

    public init(container: ContainerID, count: Int, since: Int64?, paths: [String]) {
        self.container = container
        self.count = count
        self.since = since
        self.paths = paths
    }
}

/// The answer of `deletions.confirm` (`confirmed`: paths whose deletion was recorded and sent)
/// and of `deletions.restore` (`restoring`: files being put back here; `newer`: files another
/// device changed since, whose newer versions come back; `gone`: files whose versions no other
/// device holds, deleted or changed here before they were sent, whose deletions were recorded).
public struct DeletionsDecisionResult: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var confirmed: Int?
    public var restoring: Int?
    public var newer: Int?
    public var gone: [String]?

    public init(container: ContainerID, confirmed: Int? = nil, restoring: Int? = nil, newer: Int? = nil, gone: [String]? = nil) {
        self.container = container
        self.confirmed = confirmed
        self.restoring = restoring
        self.newer = newer
        self.gone = gone
    }
}
