import Foundation
import UbiqIndex
import UbiqModel

/// Making a kept version current again: a new change here, which reaches every device.
extension ContainerSync {
    /// Puts the kept version `historyID` of `path` back at `path`, complete or not at all:
    /// assembled from the kept file (or from peers, for any chunk not here), the file there
    /// now kept in the history in its place, and recorded as a local change. A deleted file
    /// comes back, with any folders above it. With `device` (a peer), the version is the one
    /// that peer keeps under that id, and its chunks come from that peer where not here.
    public func restore(_ path: RelativePath, historyID: Int64, from device: DeviceID? = nil) async throws -> (item: Item, restored: HistoryEntry) {
        guard let holder = device, holder != self.device else {
            guard let entry = try index.historyEntry(id, id: historyID), entry.path == path else {
                throw RestoreError(.versionNotFound, "'\(path)' has no kept version '\(historyID)'; see `ubiq history`")
            }
            return try await restore(path, entry: entry, holders: [])
        }
        guard let peers = peerHistorySource.withLock({ $0 }) else {
            throw RestoreError(.versionNotFound, "this device does not ask peers for their histories")
        }
        let entry: HistoryEntry
        do { entry = try await peers.version(container: id, path: path, id: historyID, from: holder) } catch {
            throw RestoreError(.versionNotFound, "\(holder) does not hand over its kept version '\(historyID)' of '\(path)': \(error)")
        }
        return try await restore(path, entry: entry, holders: [holder])
    }

    /// Restores `entry`; chunks not here are asked of `holders` first.
    private func restore(_ path: RelativePath, entry: HistoryEntry, holders: [DeviceID]) async throws -> (item: Item, restored: HistoryEntry) {
        if state.held[path] != nil {
            throw RestoreError(.busy, "'\(path)' holds a change made here that this receive-only container does not send; `ubiq revert` it first")
        }
        let before = try index.item(id, path)
        let onDisk = before.flatMap { $0.item.deleted ? nil : $0 }
        if entry.item.kind == .package || onDisk?.item.kind == .package {
            return try await restorePackage(path, entry: entry, before: before, holders: holders)
        }
        if let onDisk, onDisk.item.kind == .directory {
            throw RestoreError(.folderInTheWay, "a folder is at '\(path)' now; move it away and restore again")
        }
        guard disk.stat(path) == onDisk?.stat else {
            throw RestoreError(.busy, "'\(path)' changed on disk; try again after it is scanned")
        }
        if onDisk == nil, let twin = try index.caseTwin(id, of: path) {
            throw RestoreError(.busy, "'\(path)' differs only in case from '\(twin)', which is there now; move it away first")
        }
        let scanRoot = try scanRoot(creating: path)
        var facts = assemblyFacts(for: [AssemblyFacts.File(path: path, chunks: entry.item.chunks, version: nil)])
        facts.holders[path] = holders
        let staged = try await assemble(entry.item.chunks, path: path, facts: facts)
        // Looked at again after the fetch: the puller or a client may have changed the path.
        guard try index.item(id, path) == before, disk.stat(path) == onDisk?.stat else {
            staged.discard()
            throw RestoreError(.busy, "'\(path)' changed while its kept version was put together; try again")
        }
        let metadata = FileMetadata(permissions: entry.item.permissions, mtime: entry.item.mtime, attributes: entry.item.attributes)
        if let onDisk, onDisk.item.kind == .symlink {
            do { try disk.remove(path) } catch { staged.discard(); throw error }
        }
        let kept = try plannedHistory(of: onDisk, reason: .replaced, by: device).map { try reserveHistory([$0]) } ?? []
        do {
            if onDisk?.item.kind == .file {
                _ = try disk.commit(staged, to: path, metadata: metadata, keepReplacedAs: kept.first?.name)
            } else {
                _ = try disk.commitNew(staged, to: path, metadata: metadata)
            }
        } catch {
            dropHistory(kept)
            staged.discard()
            throw error
        }
        await localChanges([scanRoot])
        guard let restored = try index.item(id, path)?.item, !restored.deleted, restored.chunks.map(\.hash) == entry.item.chunks.map(\.hash) else {
            throw RestoreError(.busy, "'\(path)' was restored but changed before it was recorded; the next scan records it")
        }
        logger.info("restored a kept version", metadata: [
            "path": "\(path)", "kept": "\(entry.id)", "from": "\(holders.first ?? device)", "version": "\(restored.version)",
        ])
        return (restored, entry)
    }
}

/// Why a kept version was not restored.
public struct RestoreError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case versionNotFound
        /// A folder is at the path.
        case folderInTheWay
        case busy
        /// The moment asked for is older than anything the history keeps.
        case beforeHistory
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
