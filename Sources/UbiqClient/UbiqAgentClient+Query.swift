import UbiqControlAPI
import UbiqModel

/// `item.status`: one item as a metadata query reports it.
extension UbiqAgentClient {
    /// Throws `RPCError` `.notFound` when the container holds no such item (or it was deleted).
    public func itemStatus(container: ContainerID, path: String) async throws -> QueryItem {
        try await connection.call(ControlMethod.itemStatus.rawValue, params: ItemStatusParams(container: container, path: path))
    }
}
