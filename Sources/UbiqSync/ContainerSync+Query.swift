import UbiqIndex
import UbiqModel

/// What metadata queries read: every item under a folder, with ``ContainerSync/itemChanges()``
/// for what changes afterwards.
extension ContainerSync {
    /// Every item at or under `root` (the whole container when nil), deleted ones included.
    public nonisolated func items(under root: RelativePath?) throws -> [IndexedItem] {
        try index.items(id, under: root)
    }
}
