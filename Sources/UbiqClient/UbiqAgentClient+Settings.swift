import UbiqControlAPI
import UbiqModel

/// `ignore.get`, `ignore.set` and `ui.url`.
extension UbiqAgentClient {
    /// The container's `.ubiqignore`, the ignore patterns every device follows.
    public func ignoreFile(_ container: ContainerID) async throws -> IgnoreFile {
        try await connection.call(ControlMethod.ignoreGet.rawValue, params: ContainerURLParams(container: container))
    }

    /// Replaces the container's `.ubiqignore` (an empty text removes it); in force on return.
    public func setIgnoreFile(_ container: ContainerID, text: String) async throws -> IgnoreFile {
        try await connection.call(ControlMethod.ignoreSet.rawValue, params: IgnoreSetParams(container: container, text: text))
    }

    /// Where the agent serves its web page, with the address that opens it.
    public func webPageAddress() async throws -> WebPageAddress {
        try await connection.call(ControlMethod.uiURL.rawValue, params: JSONValue.object([:]))
    }
}
