import UbiqControlAPI
import UbiqModel

/// Content on demand: iCloud's `startDownloadingUbiquitousItem` and `evictUbiquitousItem`.
extension UbiqAgentClient {
    /// Asks the agent for the content of a file of an on-demand container. With `wait`, returns
    /// once it is here (true) or after `timeout` (false).
    @discardableResult
    public func startDownloading(container: ContainerID, path: String, wait: Bool = false,
                                 timeout: Duration = .seconds(60)) async throws -> Bool {
        let seconds = ControlTimeout.seconds(timeout)
        let result: ItemDownloadResult = try await connection.call(
            ControlMethod.itemStartDownloading.rawValue,
            params: ItemDownloadParams(container: container, path: path, wait: wait, timeout: seconds))
        return result.downloaded
    }

    /// Drops the file's local content and keeps its metadata; throws `RPCError` `.notUploaded`
    /// while no other device holds this version.
    public func evict(container: ContainerID, path: String) async throws {
        _ = try await connection.call(ControlMethod.itemEvict.rawValue,
                                      params: try JSONValue(encoding: ItemPathParams(container: container, path: path)))
    }
}
