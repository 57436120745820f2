import Foundation
import UbiqIndex
import UbiqModel

/// What a person compares before resolving a conflict: the files that have conflict
/// versions, and the start of each version's content.
extension ContainerSync {
    /// The container's items with unresolved conflict versions, by path.
    public nonisolated func conflictedItems() throws -> [Item] {
        try index.conflictedItems(id).sorted { $0.path.rawValue < $1.path.rawValue }
    }

    /// The first `limit` bytes of one version of `path` (a conflict version by ID, or the
    /// current one when `versionID` is nil), assembled from the kept chunks as a save would
    /// (from peers for any not held here) and then discarded; nothing in the folder changes.
    /// Returns the bytes, the version's whole size and its ID.
    public func readVersion(of path: RelativePath, id versionID: String?, limit: Int) async throws -> (data: Data, size: UInt64, versionID: String) {
        let source = try version(of: path, id: versionID, use: "read")
        guard source.kind == .file else {
            throw SaveVersionError(.unsupported, "version \(source.id) of '\(path)' is a \(source.kind); only a file's content can be read")
        }
        let size = source.chunks.reduce(UInt64(0)) { $0 + UInt64($1.size) }
        let wanted = min(UInt64(limit), size)
        var chunks: [ChunkRef] = []
        var covered: UInt64 = 0
        for chunk in source.chunks where covered < wanted {
            chunks.append(chunk)
            covered += UInt64(chunk.size)
        }
        let staged = try await assemble(chunks, path: path)
        defer { staged.discard() }
        return (try staged.read(UInt32(wanted), at: 0), size, source.id)
    }
}
