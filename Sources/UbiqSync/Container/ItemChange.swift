import UbiqModel

/// A change to one item of a container as the index recorded it: what queries, presenters
/// and `events.subscribe` are told.
public struct ItemChange: Sendable, Equatable {
    /// Whether the change was made on this device or arrived from a peer.
    public enum Origin: String, Sendable {
        case local, remote
    }

    public var container: ContainerID
    /// The item as it now is (`deleted` for a removal).
    public var item: Item
    /// The item as it was before, nil if it was not in the index.
    public var previous: Item?
    public var origin: Origin
    /// For a removal that is one half of a rename: where the same content now is.
    public var movedTo: RelativePath?
    /// False when the item's content is not on this device (on-demand containers).
    public var downloaded: Bool

    public init(container: ContainerID, item: Item, previous: Item?, origin: Origin, movedTo: RelativePath? = nil,
                downloaded: Bool = true) {
        self.downloaded = downloaded
        self.container = container
        self.item = item
        self.previous = previous
        self.origin = origin
        self.movedTo = movedTo
    }

    /// Unresolved conflict versions appeared that the item did not list before.
    public var addsConflicts: Bool {
        let before = Set(previous?.conflicts.map(\.id) ?? [])
        return item.conflicts.contains { !before.contains($0.id) }
    }

    /// Pairs the removals in `changes` with creations of the same content: a file renamed
    /// or moved shows up as one of each.
    static func pairMoves(_ changes: [ItemChange]) -> [ItemChange] {
        var created: [[ChunkRef]: [RelativePath]] = [:]
        for change in changes where change.isCreation && change.item.kind == .file && !change.item.chunks.isEmpty {
            created[change.item.chunks, default: []].append(change.item.path)
        }
        guard !created.isEmpty else { return changes }
        return changes.map { change in
            guard change.item.deleted, let before = change.previous, !before.deleted, before.kind == .file,
                  var targets = created[before.chunks], !targets.isEmpty
            else { return change }
            var paired = change
            paired.movedTo = targets.removeFirst()
            created[before.chunks] = targets
            return paired
        }
    }

    var isCreation: Bool { !item.deleted && (previous == nil || previous?.deleted == true) }
}
