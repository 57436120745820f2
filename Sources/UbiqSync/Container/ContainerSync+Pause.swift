import Foundation
import UbiqModel

/// A paused container: nothing of it is sent to peers or applied from them (a transfer under
/// way stops after the run of chunks it is fetching; a large file's partial copy is kept for
/// the resume); local changes are still scanned and indexed, and announced on resume. Peers'
/// index updates are still recorded, so a resume applies them at once. Kept in the index.
extension ContainerSync {
    public nonisolated var isPaused: Bool { pauseFlag.withLock { $0 } }

    /// Pauses or resumes the container; a resume announces the local changes made meanwhile
    /// and applies the peers'.
    public func setPaused(_ paused: Bool) throws {
        try index.setPaused(id, paused)
        pauseFlag.withLock { $0 = paused }
        logger.info(paused ? "container paused" : "container resumed")
        guard !paused else { return }
        announce()
        requestPull()
    }

    /// Reads the pause kept across restarts.
    func loadPause() throws {
        let paused = try index.isPaused(id)
        pauseFlag.withLock { $0 = paused }
        if paused { logger.info("container paused since before the restart; `ubiq resume` resumes it") }
    }
}

/// Work stopped because the container (or the agent) is paused; not a failure.
public struct SyncPaused: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "syncing is paused" }
}
