import Foundation
import UbiqControl
import UbiqControlAPI
import UbiqIndex
import UbiqModel
import UbiqSync

/// Answers the control socket's methods that need a signed-in account: status, peers, the
/// account's devices, listing, versions, key-value stores, coordination, presenters and
/// events. One per sign-in, built with the account's running parts (``SyncSession``).
struct AccountMethods: Sendable {
    let status: AgentStatusSource
    let keyValue: KeyValueMethods
    let records: RecordMethods
    let coordination: CoordinationMethods
    let events: EventMethods
    let onDemand: OnDemandMethods
    let queries: QueryMethods
    let devices: DeviceMethods

    func handle(_ known: ControlMethod, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        switch known {
        case .agentStatus:
            return try JSONValue(encoding: try await status.status())
        case .peersList:
            return try JSONValue(encoding: await status.peers())
        case .devicesList, .deviceRemove, .deviceInvite, .accountRotate:
            return try await devices.handle(known, params: params)
        case .itemsList:
            let request = try RPCParams.decode(ItemsListParams.self, from: params)
            let container = try status.container(request.container)
            let parent = try request.path.flatMap { try ControlPath.itemOrRoot($0) }
            // A path names a folder to list, or one item to show; one the index does not hold is no empty folder.
            var listed: [IndexedItem]
            if let parent {
                guard let named = try container.item(at: parent), !named.item.deleted else {
                    throw RPCError(.notFound, "'\(parent)' is not in container \(request.container); `ubiq ls` lists what is")
                }
                listed = named.item.kind == .directory ? try container.children(of: parent) : [named]
            } else {
                listed = try container.children(of: nil)
            }
            let entries = listed.filter { !$0.item.deleted }.map { indexed in
                var entry = Self.entry(indexed)
                entry.ignoredBy = container.ignoring(indexed.item.path, isDirectory: indexed.item.kind == .directory).map(IgnoreLine.init)
                return entry
            }
            return try JSONValue(encoding: entries)
        case .versionsList:
            let request = try RPCParams.decode(VersionsListParams.self, from: params)
            let container = try status.container(request.container)
            guard let indexed = try container.item(at: try ControlPath.item(request.path)) else {
                throw RPCError(.notFound, "'\(request.path)' is not in container \(request.container)")
            }
            let item = indexed.item
            let current = VersionEntry(id: item.versionID, size: Int64(item.size), mtime: Self.date(item.mtime),
                                       modifiedBy: item.modifiedBy, version: "\(item.version)", current: true)
            let conflicts = item.conflicts.map {
                VersionEntry(id: $0.id, size: Int64($0.size), mtime: Self.date($0.mtime), modifiedBy: $0.modifiedBy,
                             version: "\($0.version)", current: false)
            }
            return try JSONValue(encoding: VersionsList(current: current, conflicts: conflicts))
        case .versionsResolve:
            let request = try RPCParams.decode(VersionsResolveParams.self, from: params)
            let container = try status.container(request.container)
            let keep: String? = switch request.keep {
            case .current: nil
            case .version(let id): id
            }
            do {
                let path = try ControlPath.item(request.path)
                let chosen = try keep ?? container.item(at: path)?.item.versionID
                let resolved = try await container.resolve(path, keeping: keep)
                return try JSONValue(encoding: VersionsResolveResult(path: request.path, kept: resolved.versionID, chosen: chosen))
            } catch let error as ResolveError {
                switch error.code {
                case .notFound: throw RPCError(.notFound, error.reason)
                case .versionNotFound: throw RPCError(.conflictNotFound, error.reason)
                case .busy: throw RPCError(.unavailable, error.reason)
                }
            }
        case .limitsGet, .limitsSet:
            return try await LimitMethods(limits: status.limits).handle(known, params: params)
        case .syncPause, .syncResume:
            return try await PauseMethods(status: status).handle(known, params: params)
        case .historyList, .trashList, .historyRestore, .historyRestoreFolder, .historyPrune:
            return try await HistoryMethods(status: status).handle(known, params: params)
        case .containerURL, .containerRescan, .containerReset, .versionsSave:
            return try await ContainerMethods(status: status).handle(known, params: params)
        case .deletionsList, .deletionsConfirm, .deletionsRestore:
            return try await DeletionMethods(status: status).handle(known, params: params)
        case .conflictsList, .versionsRead:
            return try await ConflictMethods(status: status).handle(known, params: params)
        case .ignoreGet, .ignoreSet:
            return try await IgnoreMethods(status: status).handle(known, params: params)
        case .containerDifferences, .containerOverride, .containerRevert:
            return try await FolderModeMethods(status: status).handle(known, params: params)
        case .kvGet, .kvSet, .kvRemove, .kvList, .kvSynchronize, .kvSubscribe:
            return try await keyValue.handle(known, params: params, connection: connection)
        case .recordsSave, .recordsFetch, .recordsSubscribe, .recordsDeleteStore:
            return try await records.handle(known, params: params, connection: connection)
        case .coordinateAcquire, .coordinateRelease, .presenterRegister, .presenterUnregister:
            return try await coordination.handle(known, params: params, connection: connection)
        case .eventsSubscribe:
            return try await events.subscribe(params: params, connection: connection)
        case .itemStartDownloading, .itemEvict:
            return try await onDemand.handle(known, params: params, connection: connection)
        case .queryStart, .queryStop, .itemStatus:
            return try await queries.handle(known, params: params, connection: connection)
        case .accountIdentity, .accountLeave, .accountCreate, .accountJoin, .accountWatch, .uiURL:
            // Answered whether signed in or not (`AgentControlHandler`).
            throw RPCError.methodNotFound(known.rawValue)
        }
    }

    static func date(_ nanoseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(nanoseconds) / 1e9) }

    static func entry(_ indexed: IndexedItem) -> ItemEntry {
        let item = indexed.item
        return ItemEntry(path: item.path.rawValue, kind: item.kind, size: Int64(item.size), mtime: date(item.latestChange),
                         executable: item.kind != .package && item.executable, permissions: item.kind == .symlink ? nil : "\(item.permissions)",
                         symlinkTarget: item.symlinkTarget, version: "\(item.version)",
                         modifiedBy: item.modifiedBy, conflicts: item.conflicts.count, downloaded: indexed.downloaded)
    }
}
