import UbiqModel

/// What the index knows of a file as it last saw it on disk, to skip re-hashing it.
public struct StatFingerprint: Hashable, Sendable {
    public var size: UInt64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: UInt64

    public init(size: UInt64, mtimeNs: Int64, ctimeNs: Int64, inode: UInt64) {
        self.size = size
        self.mtimeNs = mtimeNs
        self.ctimeNs = ctimeNs
        self.inode = inode
    }
}

/// An item as this device holds it, with its local sequence number and stat fingerprint.
public struct IndexedItem: Sendable, Equatable {
    public var item: Item
    public var sequence: Int64
    /// Nil where the item has no file on disk (deleted, or not yet stat'ed).
    public var stat: StatFingerprint?

    public init(item: Item, sequence: Int64, stat: StatFingerprint?) {
        self.item = item
        self.sequence = sequence
        self.stat = stat
    }
}

/// Where a chunk can be read on this device: a container file or a kept conflict version.
public struct ChunkLocation: Sendable, Equatable {
    public enum File: Sendable, Equatable {
        case item(RelativePath)
        /// The file name inside the container's `.ubiq/versions/`.
        case version(String)
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
    public var bytes: UInt64 = 0
    public var conflicts = 0
    public var needItems = 0
    public var needBytes: UInt64 = 0

    public var items: Int { files + directories + symlinks }
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
