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
    /// ``KeyValueGetParams`` → ``KeyValueGetResult``
    case kvGet = "kv.get"
    /// ``KeyValueSetParams`` → ``KeyValueWriteResult``
    case kvSet = "kv.set"
    /// ``KeyValueRemoveParams`` → ``KeyValueWriteResult``
    case kvRemove = "kv.remove"
    /// ``KeyValueStoreParams`` → ``KeyValueListResult``
    case kvList = "kv.list"
    /// ``KeyValueStoreParams`` → ``KeyValueSynchronizeResult``
    case kvSynchronize = "kv.synchronize"
    /// ``KeyValueSubscribeParams`` → ``KeyValueSubscribeResult``, then
    /// ``ControlNotification/kvDidChangeExternally`` notifications.
    case kvSubscribe = "kv.subscribe"
    /// ``QueryStartParams`` → ``QueryStartResult``, then ``ControlNotification/queryUpdate``
    /// notifications until `query.stop` or the end of the connection.
    case queryStart = "query.start"
    /// ``QueryStopParams`` → ``QueryStopParams``
    case queryStop = "query.stop"
    /// ``ItemStatusParams`` → ``QueryItem``
    case itemStatus = "item.status"
}

/// The names of notifications the agent sends.
public enum ControlNotification: String, Sendable, CaseIterable {
    /// ``KeyValueChangeNotice``
    case kvDidChangeExternally = "kv.didChangeExternally"
    /// ``QueryUpdateNotice``
    case queryUpdate = "query.update"
}
