/// The names of the control socket's methods, shared by the agent and its clients.
public enum ControlMethod: String, Sendable, CaseIterable {
    /// → ``AgentStatus``
    case agentStatus = "agent.status"
    /// → ``AccountIdentity``
    case accountIdentity = "account.identity"
    /// ``AccountLeaveParams`` → ``AccountLeaveResult``
    case accountLeave = "account.leave"
    /// ``AccountCreateParams`` → ``AccountIdentity``
    case accountCreate = "account.create"
    /// ``AccountJoinParams`` → ``AccountIdentity``
    case accountJoin = "account.join"
    /// none → ``AccountIdentityChange`` (the token now); then `account.identityChanged`
    /// notifications at every sign-in and sign-out
    case accountWatch = "account.watch"
    /// → `[PeerStatus]`
    case peersList = "peers.list"
    /// → `[DeviceEntry]`
    case devicesList = "devices.list"
    /// ``DeviceRemoveParams`` → ``DeviceRemoveResult``
    case deviceRemove = "device.remove"
    /// none → ``DeviceInviteResult``
    case deviceInvite = "device.invite"
    /// none → ``AccountRotateResult``
    case accountRotate = "account.rotate"
    /// ``ItemsListParams`` → `[ItemEntry]`
    case itemsList = "items.list"
    /// ``VersionsListParams`` → ``VersionsList``
    case versionsList = "versions.list"
    /// ``VersionsResolveParams`` → ``VersionsResolveResult``
    case versionsResolve = "versions.resolve"
    /// ``VersionsSaveParams`` → ``VersionsSaveResult``
    case versionsSave = "versions.save"
    /// ``VersionsReadParams`` → ``VersionsReadResult``
    case versionsRead = "versions.read"
    /// ``ContainerURLParams`` → `[ConflictEntry]`
    case conflictsList = "conflicts.list"
    /// ``ContainerURLParams`` → ``IgnoreFile``
    case ignoreGet = "ignore.get"
    /// ``IgnoreSetParams`` → ``IgnoreFile``
    case ignoreSet = "ignore.set"
    /// → ``WebPageAddress``
    case uiURL = "ui.url"
    /// ``HistoryListParams`` → ``HistoryList``
    case historyList = "history.list"
    /// ``HistoryRestoreParams`` → ``HistoryRestoreResult``
    case historyRestore = "history.restore"
    /// ``HistoryRestoreFolderParams`` → ``HistoryRestoreFolderResult``
    case historyRestoreFolder = "history.restoreFolder"
    /// ``ContainerURLParams`` → ``HistoryPruneResult``
    case historyPrune = "history.prune"
    /// ``HistoryListParams`` → `[TrashEntry]`
    case trashList = "trash.list"
    /// → ``LimitsStatus``
    case limitsGet = "limits.get"
    /// ``LimitsSetParams`` → ``LimitsStatus``
    case limitsSet = "limits.set"
    /// ``PauseParams`` → ``PauseResult``
    case syncPause = "sync.pause"
    /// ``PauseParams`` → ``PauseResult``
    case syncResume = "sync.resume"
    /// ``ContainerURLParams`` → `[DifferenceEntry]`
    case containerDifferences = "container.differences"
    /// ``ContainerURLParams`` → ``OverrideResult``
    case containerOverride = "container.override"
    /// ``ContainerURLParams`` → ``RevertResult``
    case containerRevert = "container.revert"
    /// ``ContainerURLParams`` → ``ContainerURLResult``
    case containerURL = "container.url"
    /// ``ContainerURLParams`` → ``ContainerRescanResult``, when the scan is complete
    case containerRescan = "container.rescan"
    /// ``ContainerURLParams`` → ``ContainerResetResult``
    case containerReset = "container.reset"
    /// ``ContainerURLParams`` → ``DeletionsListResult``
    case deletionsList = "deletions.list"
    /// ``ContainerURLParams`` → ``DeletionsDecisionResult``
    case deletionsConfirm = "deletions.confirm"
    /// ``ContainerURLParams`` → ``DeletionsDecisionResult``
    case deletionsRestore = "deletions.restore"
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
    /// ``RecordsSaveParams`` → ``RecordsSaveResult``
    case recordsSave = "records.save"
    /// ``RecordsFetchParams`` → ``RecordsFetchResult``
    case recordsFetch = "records.fetch"
    /// ``RecordsStoreParams`` → ``RecordsStoreParams``; then ``ControlNotification/recordsDidImport``.
    case recordsSubscribe = "records.subscribe"
    /// ``RecordsStoreParams`` → ``RecordsDeleteStoreResult``
    case recordsDeleteStore = "records.deleteStore"
    /// ``CoordinateAcquireParams`` → ``CoordinateAcquireResult``, when granted
    case coordinateAcquire = "coordinate.acquire"
    /// ``CoordinateReleaseParams`` → `{}`
    case coordinateRelease = "coordinate.release"
    /// ``PresenterRegisterParams`` → ``PresenterID``, then `presenter.*` notifications
    case presenterRegister = "presenter.register"
    /// ``PresenterID`` → `{}`
    case presenterUnregister = "presenter.unregister"
    /// ``EventsSubscribeParams`` → ``EventsSubscribeResult``, then `events.item` notifications
    case eventsSubscribe = "events.subscribe"
    /// ``ItemDownloadParams`` → ``ItemDownloadResult``
    case itemStartDownloading = "item.startDownloading"
    /// ``ItemPathParams`` → `{}`
    case itemEvict = "item.evict"
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
    /// ``RecordsDidImportNotice``
    case recordsDidImport = "records.didImport"
    /// ``PresenterEvent``: the presented item (or something in the presented folder) changed.
    case presenterDidChange = "presenter.didChange"
    /// ``PresenterEvent`` with `to`: it moved or was renamed.
    case presenterDidMove = "presenter.didMove"
    /// ``PresenterEvent``: it was deleted.
    case presenterDidDelete = "presenter.didDelete"
    /// ``PresenterEvent`` with `conflicts`: it has new unresolved conflict versions.
    case presenterConflict = "presenter.conflict"
    /// ``ItemEvent``
    case eventsItem = "events.item"
    /// ``DownloadProgressNotice``: how far a download that a coordinated read waits for has come.
    case coordinateProgress = "coordinate.progress"
    /// ``QueryUpdateNotice``
    case queryUpdate = "query.update"
    /// ``AccountIdentityChange``: the workstation signed in or out (`account.watch`).
    case accountIdentityChanged = "account.identityChanged"
    /// ``FellBehindNotice``: a subscription ended because its client read too slowly.
    case subscriptionFellBehind = "subscription.fellBehind"
}
