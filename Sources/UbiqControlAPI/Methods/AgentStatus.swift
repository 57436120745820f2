import UbiqModel

/// The result of `agent.status`: who this device is and how far each container has synced.
public struct AgentStatus: Hashable, Sendable, Codable {
    public struct Device: Hashable, Sendable, Codable {
        public var id: DeviceID
        public var name: String

        public init(id: DeviceID, name: String) {
            self.id = id
            self.name = name
        }
    }

    public var device: Device
    /// Nil when the device has no account (signed out).
    public var identityToken: String?
    public var agentVersion: String
    /// Addresses the peer listener is bound to, `host:port`.
    public var listen: [String]
    /// `disabled`, `running` or `unavailable: <why>`.
    public var discovery: String
    public var containers: [ContainerStatus]
    public var peers: [PeerStatus]
    /// Bytes still to fetch over all containers.
    public var bytesToFetch: Int64
    /// Unresolved conflicts over all containers.
    public var conflicts: Int
    public var bytesSent: Int64
    public var bytesReceived: Int64
    /// The whole agent is paused (`sync.pause`): no peer connection is kept or taken.
    public var paused: Bool = false
    /// Bandwidth limits and the rates now (`limits.get`).
    public var limits: LimitsStatus? = nil
    /// Configured containers this agent does not sync, with why (a folder left by another
    /// account); absent when there are none.
    public var containersNotSynced: [ContainerNotSynced]? = nil
    /// The key-value stores this device takes part in (`kv.list` shows one).
    public var kvstores: [String]? = nil

    public init(
        device: Device, identityToken: String?, agentVersion: String, listen: [String], discovery: String,
        containers: [ContainerStatus], peers: [PeerStatus], bytesToFetch: Int64, conflicts: Int,
        bytesSent: Int64, bytesReceived: Int64
    ) {
        self.device = device
        self.identityToken = identityToken
        self.agentVersion = agentVersion
        self.listen = listen
        self.discovery = discovery
        self.containers = containers
        self.peers = peers
        self.bytesToFetch = bytesToFetch
        self.conflicts = conflicts
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
    }
}

/// A configured container the agent does not sync.
public struct ContainerNotSynced: Hashable, Sendable, Codable {
    public var id: ContainerID
    public var path: String
    public var reason: String

    public init(id: ContainerID, path: String, reason: String) {
        self.id = id
        self.path = path
        self.reason = reason
    }
}

/// One container's line in ``AgentStatus``.
public struct ContainerStatus: Hashable, Sendable, Codable {
    /// The most entries of `notSynced` a status carries: a pattern such as `*.o` in a large
    /// tree must not make every status answer huge.
    public static let notSyncedShown = 1000

    public var id: ContainerID
    /// The container's folder on this device.
    public var path: String
    public var items: Int
    public var files: Int
    public var directories: Int
    public var symlinks: Int
    /// File packages: folders synced as one document (absent from agents of before them).
    public var packages: Int? = nil
    public var bytes: Int64
    /// Items and bytes this device still has to fetch.
    public var needItems: Int
    public var needBytes: Int64
    public var conflicts: Int
    /// Paths that differ only in case from another path (DESIGN.md §3).
    public var caseConflicts: [String]
    public var scanning: Bool
    /// `all` or `on-demand`.
    public var download: String = "all"
    /// Files whose metadata is here but not their content (on-demand containers).
    public var notDownloaded: Int = 0
    /// Files being fetched right now.
    public var transfers: [TransferStatus] = []
    /// Changes from peers that could not be applied yet (retried every few seconds).
    public var failures: [ApplyFailureStatus] = []
    /// What is on disk but cannot be synced (a name that is not UTF-8, shown with its other
    /// bytes as `\xFF`; a file or folder that cannot be read), and why.
    /// At most ``notSyncedShown`` of them, by path; how many more there are, where more.
    public var notSynced: [NotSyncedStatus]? = nil
    public var notSyncedMore: Int? = nil
    /// The versions this device keeps of what it replaced or deleted; absent when history is
    /// off for the container.
    public var history: HistoryStatus? = nil
    /// The ignore rules in force; absent where there are none.
    public var ignore: IgnoreStatus? = nil
    /// `available`, or `unavailable` where its folder is not this container's now (a disk that
    /// is not mounted, a folder removed or replaced): nothing of it is scanned, sent, applied
    /// or deleted until the folder is back or `container.reset` is called.
    public var state: String = "available"
    /// Why it is unavailable, and what to do; absent while it is available.
    public var reason: String? = nil
    /// A mass deletion waiting for a person (`deletions.*`); absent when none is.
    public var heldDeletions: HeldDeletionsStatus? = nil
    /// Paused on its own (`sync.pause`): nothing of it is sent or applied.
    public var paused: Bool = false
    /// `send-receive` or `send-only`.
    public var mode: String = FolderMode.sendReceive.rawValue
    /// The record stores open here; absent where there are none.
    public var recordStores: [RecordStoreStatus]? = nil
    /// The container's inotify watches; absent while its folder is not there to watch.
    public var watcher: WatcherStatus? = nil

    public init(
        id: ContainerID, path: String, items: Int, files: Int, directories: Int, symlinks: Int, bytes: Int64,
        needItems: Int, needBytes: Int64, conflicts: Int, caseConflicts: [String], scanning: Bool
    ) {
        self.id = id
        self.path = path
        self.items = items
        self.files = files
        self.directories = directories
        self.symlinks = symlinks
        self.bytes = bytes
        self.needItems = needItems
        self.needBytes = needBytes
        self.conflicts = conflicts
        self.caseConflicts = caseConflicts
        self.scanning = scanning
    }
}

/// How a container's changes are seen: the inotify watches it holds (one per folder), and,
/// where the kernel's limit left folders unwatched or the folder could not be watched, how
/// often it is rescanned instead and what to do.
public struct WatcherStatus: Hashable, Sendable, Codable {
    public var watches: Int
    /// The kernel refused a watch for want of room (`fs.inotify.max_user_watches`).
    public var limitReached: Bool
    /// Seconds between whole rescans, where some of the container is not watched.
    public var rescanSeconds: Int?
    /// What is wrong and what to do; absent while every folder is watched.
    public var problem: String?

    public init(watches: Int, limitReached: Bool, rescanSeconds: Int? = nil, problem: String? = nil) {
        self.watches = watches
        self.limitReached = limitReached
        self.rescanSeconds = rescanSeconds
        self.problem = problem
    }
}

/// A path on disk that cannot be synced, and why.
public struct NotSyncedStatus: Hashable, Sendable, Codable {
    public var path: String
    public var reason: String
    /// The ignore line that leaves the path out, where that is why.
    public var ignoredBy: IgnoreLine?

    public init(path: String, reason: String, ignoredBy: IgnoreLine? = nil) {
        self.path = path
        self.reason = reason
        self.ignoredBy = ignoredBy
    }
}

/// One line of a container's ignore rules: where it is and what it says.
public struct IgnoreLine: Hashable, Sendable, Codable {
    /// `.ubiqignore`, `config` or `defaults`.
    public var source: String
    public var line: Int
    public var pattern: String

    public init(source: String, line: Int, pattern: String) {
        self.source = source
        self.line = line
        self.pattern = pattern
    }

    public init(_ pattern: IgnorePattern) {
        self.init(source: pattern.source.rawValue, line: pattern.line, pattern: pattern.text)
    }
}

/// A container's ignore rules in status: how many lines apply, and those that do not, why.
public struct IgnoreStatus: Hashable, Sendable, Codable {
    public var patterns: Int
    /// Malformed lines (each left out), and a `.ubiqignore` that cannot be read.
    public var problems: [String]

    public init(patterns: Int, problems: [String]) {
        self.patterns = patterns
        self.problems = problems
    }
}

/// A change from a peer that could not be applied, and why (a full disk, a folder in the way).
public struct ApplyFailureStatus: Hashable, Sendable, Codable {
    public var path: String
    /// The version that could not be applied, in display form.
    public var version: String
    public var error: String

    public init(path: String, version: String, error: String) {
        self.path = path
        self.version = version
        self.error = error
    }
}

/// One file being fetched, for progress bars.
public struct TransferStatus: Hashable, Sendable, Codable {
    public var path: String
    /// Bytes in place so far, of `total`.
    public var done: Int64
    public var total: Int64

    public init(path: String, done: Int64, total: Int64) {
        self.path = path
        self.done = done
        self.total = total
    }
}

/// A container's history in status: what is kept and the retention that thins it.
public struct HistoryStatus: Hashable, Sendable, Codable {
    public var versions: Int
    public var bytes: Int64
    /// Versions older than this go.
    public var maxAgeDays: Int
    /// Past this many bytes the oldest go; absent where the file system's size is unknown.
    public var maxBytes: Int64?

    public init(versions: Int, bytes: Int64, maxAgeDays: Int, maxBytes: Int64?) {
        self.versions = versions
        self.bytes = bytes
        self.maxAgeDays = maxAgeDays
        self.maxBytes = maxBytes
    }
}
