import Foundation
import UbiqIndex
import UbiqModel

/// Why an item could not be downloaded or evicted.
public struct OnDemandError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notFound, notAFile, notOnDemand, notUploaded, busy, changed
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}

/// Content on demand: asking for a file's content, waiting for it, and dropping it again
/// while keeping the metadata (iCloud's `startDownloadingUbiquitousItem` and `evict`).
extension ContainerSync {
    /// Whether this device holds the content of the item at `path`: false only for a file
    /// or package whose metadata is here without its content.
    public func isDownloaded(_ path: RelativePath) throws -> Bool {
        try index.item(id, path).map { $0.downloaded || $0.item.deleted || !$0.item.kind.hasBytes } ?? true
    }

    /// Other devices known to hold exactly the current version of `path`.
    public func holders(of path: RelativePath) throws -> [DeviceID] {
        guard let item = try index.item(id, path)?.item, !item.deleted else { return [] }
        return try index.holders(id, path, version: item.version)
    }

    /// Asks for the content of `path`; returns at once (the puller fetches it).
    public func startDownloading(_ path: RelativePath) throws(OnDemandError) {
        let indexed = try existingFile(path)
        guard !indexed.downloaded else { return }
        do { try index.requestFetch(id, indexed.item) } catch {
            throw OnDemandError(.busy, "cannot record the request: \(error)")
        }
        requestPull()
    }

    /// Asks for the content of `path` and waits until it is here, at most `timeout`.
    public func download(_ path: RelativePath, timeout: Duration) async throws(OnDemandError) -> Bool {
        let changes = itemChanges()
        try startDownloading(path)
        if (try? isDownloaded(path)) == true { return true }
        let arrived = try? await withDeadline(timeout, clock: clock) {
            for await change in changes where change.item.path == path {
                if (try? await self.isDownloaded(path)) == true { return true }
            }
            return false
        }
        return arrived ?? false
    }

    /// Drops the local content of `path` and keeps its metadata. Refused unless another
    /// device holds this exact version (evicting would lose it) and nothing holds a lease.
    public func evict(_ path: RelativePath) async throws(OnDemandError) {
        guard onDemand else {
            throw OnDemandError(.notOnDemand, "container \(id) downloads everything; set download = \"on-demand\" for it to evict")
        }
        let claim = FileLeases.Claim(container: id, path: path, access: .write)
        let evicted: Void? = try await leased([claim], for: .agent("evict"), wait: .seconds(5)) { () async throws(OnDemandError) in
            try await evictLeased(path)
        }
        guard evicted != nil else { throw OnDemandError(.busy, "'\(path)' is in use (a coordination lease); try again") }
    }

    private func evictLeased(_ path: RelativePath) async throws(OnDemandError) {
        let before = try existingFile(path)
        guard before.downloaded else { return }
        do { try scan(under: path) } catch { throw OnDemandError(.busy, "cannot rescan '\(path)': \(error)") }
        let current = try existingFile(path)
        guard current.item.version == before.item.version, current.stat != nil else {
            throw OnDemandError(.changed, "'\(path)' changed on disk; it is sent to peers first, evict it after")
        }
        guard let holders = try? index.holders(id, path, version: current.item.version), !holders.isEmpty else {
            throw OnDemandError(.notUploaded, "no other device holds this version of '\(path)' yet; evicting it would lose it")
        }
        do {
            // A package goes whole, where it is still as recorded.
            // Evicted content is held elsewhere: nothing goes to the history.
            if current.item.kind == .package { try removePackage(current, keeping: nil, by: device) } else { try disk.remove(path) }
            try record([ItemWrite(item: current.item, stat: nil, downloaded: false)], origin: .local)
        } catch {
            throw OnDemandError(.busy, "cannot evict '\(path)': \(error)")
        }
        announce()
        logger.info("evicted", metadata: ["path": "\(path)", "holders": "\(holders)"])
    }

    private func existingFile(_ path: RelativePath) throws(OnDemandError) -> IndexedItem {
        let found: IndexedItem?
        do { found = try index.item(id, path) } catch { throw OnDemandError(.notFound, "cannot read the index: \(error)") }
        guard let found, !found.item.deleted else { throw OnDemandError(.notFound, "'\(path)' is not in container \(id)") }
        guard found.item.kind.hasBytes else { throw OnDemandError(.notAFile, "'\(path)' is not a file or package") }
        return found
    }
}
