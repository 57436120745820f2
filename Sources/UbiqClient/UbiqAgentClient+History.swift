import Foundation
import UbiqControlAPI
import UbiqModel

/// The history: versions the agent replaced or deleted, and restoring one.
extension UbiqAgentClient {
    /// The kept versions of `path` and everything under it (the whole container when nil),
    /// newest first.
    public func history(container: ContainerID, path: String? = nil) async throws -> HistoryList {
        try await connection.call(ControlMethod.historyList.rawValue, params: HistoryListParams(container: container, path: path))
    }

    /// Deleted files under `path` (the whole container when nil), each with its last version.
    public func trash(container: ContainerID, path: String? = nil) async throws -> [TrashEntry] {
        try await connection.call(ControlMethod.trashList.rawValue, params: HistoryListParams(container: container, path: path))
    }

    /// Makes the kept version `version` (an id from ``history(container:path:)`` or
    /// ``trash(container:path:)``) current again at `path`: a new change, on every device.
    public func restore(container: ContainerID, path: String, version: String) async throws -> HistoryRestoreResult {
        try await connection.call(ControlMethod.historyRestore.rawValue,
                                  params: HistoryRestoreParams(container: container, path: path, version: version))
    }

    /// Applies the history's retention now: what it let go of.
    public func pruneHistory(container: ContainerID) async throws -> HistoryPruneResult {
        try await connection.call(ControlMethod.historyPrune.rawValue, params: ContainerURLParams(container: container))
    }

    /// Puts everything under `path` back as it was at `at`: changed files get their old
    /// version, deleted ones come back, files created since move to the history.
    public func restoreFolder(container: ContainerID, path: String, at: Date) async throws -> HistoryRestoreFolderResult {
        try await connection.call(ControlMethod.historyRestoreFolder.rawValue,
                                  params: HistoryRestoreFolderParams(container: container, path: path, at: at))
    }
}
