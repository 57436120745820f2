import UbiqIndex
import UbiqModel

/// What metadata queries read: every item under a folder, with ``ContainerSync/itemChanges()``
/// for what changes afterwards.
extension ContainerSync {
    /// Every item at or under `root` (the whole container when nil), deleted ones included.
    public nonisolated func items(under root: RelativePath?) throws -> [IndexedItem] {
        try index.items(id, under: root)
    }

    /// Whether other devices hold the content of exactly this version (iCloud's
    /// `isUploaded`), for every path of the container that some peer holds.
    public nonisolated func uploadedVersions() throws -> [RelativePath: [VersionVector]] {
        try index.heldVersions(id)
    }

    /// Whether another device holds the content of exactly `item`'s version.
    public nonisolated func isUploaded(_ item: Item) -> Bool {
        ((try? index.holders(id, item.path, version: item.version)) ?? []).isEmpty == false
    }

    /// The engine's state of this container in one line (passes, paths in flight, failures),
    /// for diagnosing a run that did not settle.
    public func diagnostics() -> String { state.summary }
}
