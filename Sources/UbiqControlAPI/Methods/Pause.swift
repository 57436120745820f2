import UbiqModel

/// The params of `sync.pause` and `sync.resume`: one container, or (without it) the whole
/// agent.
public struct PauseParams: Hashable, Sendable, Codable {
    public var container: ContainerID?

    public init(container: ContainerID? = nil) { self.container = container }
}

/// What is paused after `sync.pause` or `sync.resume`.
public struct PauseResult: Hashable, Sendable, Codable {
    /// The whole agent: no peer connection at all.
    public var agentPaused: Bool
    /// Containers paused on their own.
    public var pausedContainers: [ContainerID]

    public init(agentPaused: Bool, pausedContainers: [ContainerID]) {
        self.agentPaused = agentPaused
        self.pausedContainers = pausedContainers
    }
}
