import UbiqControlAPI
import UbiqModel

/// Typed access to the agent's methods over one ``UbiqConnection``.
public struct UbiqAgentClient: Sendable {
    public let connection: UbiqConnection

    public init(connection: UbiqConnection) { self.connection = connection }

    /// Connects to the agent at `socketPath`, by default where ubiqd listens.
    public static func connect(socketPath: String = ControlSocketPath.default()) async throws(UbiqClientError) -> UbiqAgentClient {
        UbiqAgentClient(connection: try await UbiqConnection.connect(socketPath: socketPath))
    }

    public func status() async throws -> AgentStatus {
        try await connection.call(ControlMethod.agentStatus.rawValue)
    }

    public func peers() async throws -> [PeerStatus] {
        try await connection.call(ControlMethod.peersList.rawValue)
    }

    /// The direct children of `path`, or of the container's root.
    public func items(container: ContainerID, path: String? = nil) async throws -> [ItemEntry] {
        try await connection.call(ControlMethod.itemsList.rawValue, params: ItemsListParams(container: container, path: path))
    }

    public func versions(container: ContainerID, path: String) async throws -> VersionsList {
        try await connection.call(ControlMethod.versionsList.rawValue, params: VersionsListParams(container: container, path: path))
    }

    /// Keeps one version of a conflicted document and discards the others, on every device.
    public func resolve(container: ContainerID, path: String, keep: VersionChoice) async throws -> VersionsResolveResult {
        try await connection.call(
            ControlMethod.versionsResolve.rawValue, params: VersionsResolveParams(container: container, path: path, keep: keep))
    }

    public func identity() async throws -> AccountIdentity {
        try await connection.call(ControlMethod.accountIdentity.rawValue)
    }

    public func close() async { await connection.close() }
}
