import UbiqModel

/// The result of `ignore.get` and `ignore.set`: the container's `.ubiqignore`, the synced
/// ignore patterns every device of the account follows (gitignore syntax).
public struct IgnoreFile: Hashable, Sendable, Codable {
    public var container: ContainerID
    /// The file's text; empty when there is none.
    public var text: String
    public var exists: Bool

    public init(container: ContainerID, text: String, exists: Bool) {
        self.container = container
        self.text = text
        self.exists = exists
    }
}

/// The params of `ignore.set`: the whole new text of `.ubiqignore`. An empty text removes
/// the file.
public struct IgnoreSetParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var text: String

    public init(container: ContainerID, text: String) {
        self.container = container
        self.text = text
    }
}
