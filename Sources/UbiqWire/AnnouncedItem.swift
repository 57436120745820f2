import UbiqChunking
import UbiqModel

/// A peer's index entry as it arrived. A large file may come named by its chunk groups, with
/// an empty chunk list: the receiver fills it from groups it holds and asks the peer for the
/// rest before the engine sees the item.
public struct AnnouncedItem: Sendable {
    public var item: Item
    /// Empty when `item` carries its whole chunk list.
    public var groups: [ChunkGroup]
    /// The entry's sequence in the sender's index.
    public var sequence: Int64
    /// The sender has the metadata but not the content.
    public var absent: Bool

    public init(item: Item, groups: [ChunkGroup], sequence: Int64, absent: Bool) {
        self.item = item
        self.groups = groups
        self.sequence = sequence
        self.absent = absent
    }

    /// The item with its whole chunk list; nil while a group is missing from `lists`.
    public func resolved(from lists: [ChunkHash: ArraySlice<ChunkRef>]) -> Item? {
        guard !groups.isEmpty else { return item }
        guard let chunks = ChunkGroups.assemble(groups, from: lists) else { return nil }
        var item = self.item
        item.chunks = chunks
        return item
    }

    /// Groups that `lists` cannot fill, each once.
    public func missing(from lists: [ChunkHash: ArraySlice<ChunkRef>]) -> [ChunkGroup] {
        var seen: Set<ChunkHash> = []
        return ChunkGroups.missing(groups, from: lists).filter { seen.insert($0.hash).inserted }
    }
}
