import UbiqControlAPI
import UbiqModel

/// `container.url`, `container.rescan`, `sync.pause`, `sync.resume` and `versions.save`.
extension UbiqAgentClient {
    /// Where `container`'s folder is on this device; `url` is nil when the device does not
    /// sync it (no error).
    public func containerURL(_ container: ContainerID) async throws -> ContainerURLResult {
        try await connection.call(ControlMethod.containerURL.rawValue, params: ContainerURLParams(container: container))
    }

    /// Pauses syncing of `container`, or (nil) of the whole agent, until ``resume(_:)``;
    /// kept across restarts. Local changes are still indexed.
    public func pause(_ container: ContainerID? = nil) async throws -> PauseResult {
        try await connection.call(ControlMethod.syncPause.rawValue, params: PauseParams(container: container))
    }

    /// Resumes what ``pause(_:)`` paused: the container, or (nil) the whole agent.
    public func resume(_ container: ContainerID? = nil) async throws -> PauseResult {
        try await connection.call(ControlMethod.syncResume.rawValue, params: PauseParams(container: container))
    }

    /// The bandwidth limits and the rates now.
    public func limits() async throws -> LimitsStatus {
        try await connection.call(ControlMethod.limitsGet.rawValue, params: JSONValue.object([:]))
    }

    /// Changes bandwidth limits at run time; connections stay.
    public func setLimits(_ change: LimitsSetParams) async throws -> LimitsStatus {
        try await connection.call(ControlMethod.limitsSet.rawValue, params: change)
    }

    /// What a container's mode holds back: the peers' versions not applied here (send-only),
    /// or the changes made here not sent (receive-only).
    public func differences(_ container: ContainerID) async throws -> [DifferenceEntry] {
        try await connection.call(ControlMethod.containerDifferences.rawValue, params: ContainerURLParams(container: container))
    }

    /// Makes the peers of a send-only container take this device's versions.
    public func overrideDifferences(_ container: ContainerID) async throws -> OverrideResult {
        try await connection.call(ControlMethod.containerOverride.rawValue, params: ContainerURLParams(container: container))
    }

    /// Puts the account's versions back where a receive-only container was changed here; what
    /// was changed goes to the history.
    public func revertLocalChanges(_ container: ContainerID) async throws -> RevertResult {
        try await connection.call(ControlMethod.containerRevert.rawValue, params: ContainerURLParams(container: container))
    }

    /// Compares the container's folder with the index now and records what changed; returns
    /// when the scan is complete.
    public func rescan(_ container: ContainerID) async throws -> ContainerRescanResult {
        try await connection.call(ControlMethod.containerRescan.rawValue, params: ContainerURLParams(container: container))
    }

    /// Takes the folder at the container's path as this container's, as it is now (after the
    /// container became unavailable: a new disk, a folder put back): a new marker, and what
    /// the folder lacks is fetched again from other devices, never deleted on them.
    public func resetFolder(_ container: ContainerID) async throws -> ContainerResetResult {
        try await connection.call(ControlMethod.containerReset.rawValue, params: ContainerURLParams(container: container))
    }

    /// The deletions held back because they would delete much of the container at once.
    public func heldDeletions(_ container: ContainerID) async throws -> DeletionsListResult {
        try await connection.call(ControlMethod.deletionsList.rawValue, params: ContainerURLParams(container: container))
    }

    /// Sends the held deletions (of the files still gone) to the other devices.
    public func confirmDeletions(_ container: ContainerID) async throws -> DeletionsDecisionResult {
        try await connection.call(ControlMethod.deletionsConfirm.rawValue, params: ContainerURLParams(container: container))
    }

    /// Puts the files of the held deletions back here, from this device's copies or from peers.
    public func restoreDeletions(_ container: ContainerID) async throws -> DeletionsDecisionResult {
        try await connection.call(ControlMethod.deletionsRestore.rawValue, params: ContainerURLParams(container: container))
    }

    /// Writes one version of `path` (a conflict version, or the current one) to the new path
    /// `to` ("keep both"). Throws an `RPCError` with code `.alreadyExists` when `to` exists,
    /// and writes nothing then. The conflict of `path` stays until it is resolved.
    public func saveVersion(container: ContainerID, path: String, version: VersionChoice, to: String) async throws -> VersionsSaveResult {
        try await connection.call(
            ControlMethod.versionsSave.rawValue, params: VersionsSaveParams(container: container, path: path, version: version, to: to))
    }
}
