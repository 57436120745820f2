import UbiqModel

/// An item as this device holds it, with its local sequence number and stat fingerprint.
public struct IndexedItem: Sendable, Equatable {
    public var item: Item
    public var sequence: Int64
    /// Nil where the item has no file on disk (deleted, or not yet stat'ed).
    public var stat: FileStat?
    /// False for a file of an on-demand container whose content this device has not
    /// fetched (or has evicted): the metadata is here, the file is not.
    public var downloaded: Bool

    public init(item: Item, sequence: Int64, stat: FileStat?, downloaded: Bool = true) {
        self.downloaded = downloaded
        self.item = item
        self.sequence = sequence
        self.stat = stat
    }
}

/// What a rescan needs of each indexed path to tell what changed, without the rest of the
/// item: a full rescan of a large container reads this for every path, and whole items only
/// for the paths that changed.
public struct ItemBaseline: Sendable, Equatable {
    public var stat: FileStat?
    public var deleted: Bool
    public var downloaded: Bool

    public init(stat: FileStat?, deleted: Bool, downloaded: Bool) {
        self.stat = stat
        self.deleted = deleted
        self.downloaded = downloaded
    }
}

/// Where a chunk can be read on this device: a container file or a kept conflict version.
public struct ChunkLocation: Sendable, Equatable {
    public enum File: Sendable, Equatable {
        case item(RelativePath)
        /// The file name inside the container's `.ubiq/versions/`.
        case version(String)
        /// The file name inside the container's `.ubiq/history/`.
        case history(String)
    }

    public var container: ContainerID
    public var file: File
    public var offset: UInt64
    public var size: UInt32
}

/// Per-container counters shown in status.
public struct ContainerStatistics: Sendable, Equatable {
    public var files = 0
    public var directories = 0
    public var symlinks = 0
    /// File packages, each one document.
    public var packages = 0
    /// Of files and packages.
    public var bytes: UInt64 = 0
    public var conflicts = 0
    public var needItems = 0
    public var needBytes: UInt64 = 0
    /// Files whose content is not on this device (on-demand containers).
    public var notDownloaded = 0

    public var items: Int { files + directories + symlinks + packages }
}

/// This device's index of one container: its random ID (changes when the index is reset,
/// so peers resend everything) and its highest sequence number.
public struct ContainerIndexState: Sendable, Equatable {
    public var indexID: UInt64
    public var sequence: Int64
}

/// What this device has received of a peer's index.
public struct PeerIndexState: Sendable, Equatable {
    public var indexID: UInt64
    public var maxSequence: Int64

    public init(indexID: UInt64, maxSequence: Int64) {
        self.indexID = indexID
        self.maxSequence = maxSequence
    }
}
