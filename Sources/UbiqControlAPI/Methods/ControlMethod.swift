/// The names of the control socket's methods, shared by the agent and its clients.
public enum ControlMethod: String, Sendable, CaseIterable {
    /// → ``AgentStatus``
    case agentStatus = "agent.status"
    /// → ``AccountIdentity``
    case accountIdentity = "account.identity"
    /// → `[PeerStatus]`
    case peersList = "peers.list"
    /// ``ItemsListParams`` → `[ItemEntry]`
    case itemsList = "items.list"
    /// ``VersionsListParams`` → ``VersionsList``
    case versionsList = "versions.list"
    /// ``VersionsResolveParams`` → ``VersionsResolveResult``
    case versionsResolve = "versions.resolve"
}
