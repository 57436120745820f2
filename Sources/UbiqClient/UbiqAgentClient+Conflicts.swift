import UbiqControlAPI
import UbiqModel

/// `conflicts.list` and `versions.read`: finding conflicts and comparing their versions.
extension UbiqAgentClient {
    /// The files of `container` that have unresolved conflict versions.
    public func conflicts(in container: ContainerID) async throws -> [ConflictEntry] {
        try await connection.call(ControlMethod.conflictsList.rawValue, params: ContainerURLParams(container: container))
    }

    /// The first `maxBytes` bytes (1 MiB when nil) of one version of a file, to compare it.
    public func readVersion(_ container: ContainerID, path: String, version: VersionChoice = .current,
                            maxBytes: Int? = nil) async throws -> VersionsReadResult {
        try await connection.call(ControlMethod.versionsRead.rawValue,
                                  params: VersionsReadParams(container: container, path: path, version: version, maxBytes: maxBytes))
    }
}
