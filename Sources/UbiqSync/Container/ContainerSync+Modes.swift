import Foundation
import UbiqIndex
import UbiqModel

/// A container's mode. A send-only container: its own changes go out, its peers' are recorded
/// as needs but never applied; they are the differences, until an override makes the peers
/// take this device's versions (each a new local version that covers the peer's). Receive-only
/// is in `ContainerSync+ReceiveOnly`.
extension ContainerSync {
    public nonisolated var mode: FolderMode { modeFlag.withLock { $0 } }

    public nonisolated func setMode(_ mode: FolderMode) {
        modeFlag.withLock { $0 = mode }
        if mode == .sendReceive { requestPull() }
    }

    /// A path where this device and the account differ on purpose: a peer's version a
    /// send-only container has not applied, or a change a receive-only container has not sent.
    public struct Difference: Sendable {
        public var path: RelativePath
        /// What this device has; nil where it has nothing there (or deleted it).
        public var local: Item?
        /// The peers' version; nil where they have nothing there (a file made here).
        public var peer: Item?
        /// Whether the change held back is this device's (receive-only) or a peer's.
        public var changedHere: Bool
    }

    /// What differs by path: in a send-only container everything its peers changed since,
    /// in a receive-only container everything changed here since.
    public func differences() throws -> [Difference] {
        if mode == .receiveOnly { return try heldDifferences().sorted { $0.path < $1.path } }
        let needs = try index.needs(id)
        let local = try index.items(id, at: needs.map(\.path))
        return needs.map { Difference(path: $0.path, local: local[$0.path]?.item, peer: $0, changedHere: false) }.sorted { $0.path < $1.path }
    }

    /// Makes the peers take this device's versions where they differ: each path gets a new
    /// local version that covers the peer's (the same content here; a deletion where this
    /// device has nothing), so every device applies it. Returns the paths.
    public func overrideDifferences() throws -> [RelativePath] {
        let needs = try index.needs(id)
        guard !needs.isEmpty else { return [] }
        let local = try index.items(id, at: needs.map(\.path))
        var writes: [ItemWrite] = []
        var previous: [RelativePath: Item] = [:]
        for need in needs {
            if let mine = local[need.path] {
                previous[need.path] = mine.item
                let item = mine.item.changedContent(by: device, after: mine.item.version.merged(with: need.version))
                writes.append(ItemWrite(item: item, stat: mine.stat, settlesNeed: true, downloaded: mine.downloaded))
            } else {
                var gone = need.changedContent(by: device, after: need.version)
                gone.deleted = true
                gone.size = 0
                gone.chunks = []
                gone.members = []
                gone.symlinkTarget = nil
                gone.conflicts = []
                writes.append(ItemWrite(item: gone, stat: nil, settlesNeed: true))
            }
        }
        try record(writes, origin: .local, previous: previous)
        announce()
        logger.info("overrode the peers' versions", metadata: ["paths": "\(writes.count)"])
        return writes.map(\.item.path)
    }
}
