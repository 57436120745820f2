import Foundation
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `history.list`, `trash.list`, `history.restore`, `history.restoreFolder` and `history.prune`: the versions
/// this device and its connected peers replaced or deleted, and making them current again.
struct HistoryMethods: Sendable {
    let status: AgentStatusSource

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        switch method {
        case .historyList:
            let request = try RPCParams.decode(HistoryListParams.self, from: params)
            return try JSONValue(encoding: try await list(request))
        case .trashList:
            let request = try RPCParams.decode(HistoryListParams.self, from: params)
            return try JSONValue(encoding: try await trash(request))
        case .historyRestore:
            let request = try RPCParams.decode(HistoryRestoreParams.self, from: params)
            return try JSONValue(encoding: try await restore(request))
        case .historyRestoreFolder:
            let request = try RPCParams.decode(HistoryRestoreFolderParams.self, from: params)
            return try JSONValue(encoding: try await restoreFolder(request))
        case .historyPrune:
            let request = try RPCParams.decode(ContainerURLParams.self, from: params)
            return try JSONValue(encoding: try await prune(request))
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    private func list(_ request: HistoryListParams) async throws -> HistoryList {
        let container = try status.container(request.container)
        let root = try request.path.flatMap { try ControlPath.itemOrRoot($0) }
        let (known, peers) = try await container.knownHistory(under: root)
        let (count, bytes) = try container.historySize()
        return HistoryList(versions: known.map { version($0, device: container.device) }, count: count, bytes: Int64(clamping: bytes),
                           peersAsked: peers.map(\.device))
    }

    /// Deleted files under the path, each with its last version: what is deleted now. Files
    /// this device deleted itself are in its peers' histories.
    private func trash(_ request: HistoryListParams) async throws -> [TrashEntry] {
        let container = try status.container(request.container)
        let root = try request.path.flatMap { try ControlPath.itemOrRoot($0) }
        let (known, _) = try await container.knownHistory(under: root)
        let current = try container.items(at: Array(Set(known.map(\.path))))
        var seen = Set<RelativePath>()
        var result: [TrashEntry] = []
        for version in known where !seen.contains(version.path) {
            seen.insert(version.path)
            let entry = version.entry
            guard entry.reason == .deleted, current[entry.path].map({ $0.item.deleted }) ?? true else { continue }
            result.append(TrashEntry(path: entry.path.rawValue, deletedAt: Date(timeIntervalSince1970: Double(entry.keptAt) / 1000),
                                     deletedBy: entry.by, size: Int64(entry.item.size), version: id(of: version)))
        }
        return result.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    private func restore(_ request: HistoryRestoreParams) async throws -> HistoryRestoreResult {
        let container = try status.container(request.container)
        let path = try ControlPath.item(request.path)
        let (number, device) = try HistoryVersionID.parse(request.version)
        do {
            let (item, entry) = try await container.restore(path, historyID: number, from: device)
            return HistoryRestoreResult(path: path.rawValue, restored: HistoryVersionID.format(entry.id, on: device == container.device ? nil : device),
                                        version: "\(item.version)", size: Int64(item.size))
        } catch let error as RestoreError {
            let code: RPCError.Code = switch error.code {
            case .versionNotFound: .notFound
            case .folderInTheWay: .alreadyExists
            case .busy: .unavailable
            case .beforeHistory: .invalidParams
            }
            throw RPCError(code, error.reason)
        } catch let error as FetchError {
            throw RPCError(.unavailable, "part of the version is on no connected device (\(error.reason)); try again when a peer that holds it is connected")
        }
    }

    /// Applies retention now rather than at the next periodic pass.
    private func prune(_ request: ContainerURLParams) async throws -> HistoryPruneResult {
        let container = try status.container(request.container)
        let (removed, freed) = try await container.pruneHistoryNow()
        let (count, bytes) = try container.historySize()
        return HistoryPruneResult(removed: removed, freedBytes: Int64(clamping: freed), count: count, bytes: Int64(clamping: bytes))
    }

    private func restoreFolder(_ request: HistoryRestoreFolderParams) async throws -> HistoryRestoreFolderResult {
        let container = try status.container(request.container)
        let root = try ControlPath.item(request.path)
        do {
            let done = try await container.restoreFolder(root, at: Int64((request.at.timeIntervalSince1970 * 1000).rounded()))
            return HistoryRestoreFolderResult(restored: done.restored.map(\.rawValue), removed: done.removed.map(\.rawValue),
                                              unchanged: done.unchanged,
                                              failed: done.failed.map { .init(path: $0.path.rawValue, reason: $0.reason) })
        } catch let error as RestoreError {
            let code: RPCError.Code = switch error.code {
            case .beforeHistory: .invalidParams
            case .versionNotFound: .notFound
            case .folderInTheWay, .busy: .unavailable
            }
            throw RPCError(code, error.reason)
        }
    }

    /// A version's id: this device's where it keeps it, else the first peer's.
    private func id(of version: KnownVersion) -> String {
        if let local = version.localID { return HistoryVersionID.format(local) }
        let (peer, number) = version.peers.min { $0.key < $1.key }!
        return HistoryVersionID.format(number, on: peer)
    }

    private func version(_ known: KnownVersion, device: DeviceID) -> HistoryVersion {
        let entry = known.entry
        return HistoryVersion(id: id(of: known), path: entry.path.rawValue, size: Int64(entry.item.size),
                              mtime: Date(timeIntervalSince1970: Double(entry.item.mtime) / 1e9), modifiedBy: entry.item.modifiedBy,
                              version: "\(entry.item.version)", keptAt: Date(timeIntervalSince1970: Double(entry.keptAt) / 1000),
                              reason: entry.reason.name, by: entry.by,
                              devices: (known.localID == nil ? [] : [device]) + known.peers.keys.sorted())
    }
}
