import Foundation
import UbiqControlAPI
import UbiqIdentity
import UbiqModel
import UbiqSync
import UbiqTransport

/// Gathers what `agent.status`, `peers.list` and the item methods answer, from the engine
/// and the containers.
struct AgentStatusSource: Sendable {
    let identity: DeviceIdentity
    /// The name peers see: the configured one, else the one stored with the identity.
    let deviceName: String
    let engine: SyncEngine
    let containers: [ContainerSync]
    let roots: [ContainerID: String]
    let listening: [String]
    let discovery: @Sendable () async -> String
    let limits: BandwidthLimits
    /// Configured containers this agent does not sync, with why.
    var notSynced: [ContainerNotSynced] = []
    var recordStores: RecordStores? = nil
    /// The key-value stores this device takes part in.
    var keyValueStores: [String] = []
    var watches: WatchStates? = nil

    func container(_ id: ContainerID) throws(RPCError) -> ContainerSync {
        guard let container = containers.first(where: { $0.id == id }) else {
            throw RPCError(.containerNotFound, "this agent does not sync container \(id); see `ubiq status` for the ones it does")
        }
        return container
    }

    func peers() async -> [PeerStatus] {
        await engine.peers().map {
            PeerStatus(deviceID: $0.device, name: $0.name, address: $0.address, connected: $0.connected, since: $0.since,
                       bytesSent: Int64($0.bytesSent), bytesReceived: Int64($0.bytesReceived), lastError: $0.lastError)
        }
    }

    func status() async throws -> AgentStatus {
        var result: [ContainerStatus] = []
        for container in containers {
            let status = try container.status()
            let stats = status.statistics
            var entry = ContainerStatus(
                id: container.id, path: roots[container.id] ?? "", items: stats.items, files: stats.files,
                directories: stats.directories, symlinks: stats.symlinks, bytes: Int64(stats.bytes),
                needItems: stats.needItems, needBytes: Int64(stats.needBytes), conflicts: stats.conflicts,
                caseConflicts: status.caseConflicts, scanning: status.scanning)
            entry.download = container.onDemand ? "on-demand" : "all"
            entry.packages = stats.packages
            entry.notDownloaded = stats.notDownloaded
            entry.transfers = container.transfers.all.map {
                TransferStatus(path: $0.path.rawValue, done: Int64($0.done), total: Int64($0.total))
            }
            entry.failures = container.failures().map {
                ApplyFailureStatus(path: $0.item.path.rawValue, version: "\($0.item.version)", error: $0.reason)
            }
            let problems = container.scanProblems()
            entry.notSynced = problems.isEmpty ? nil : problems.prefix(ContainerStatus.notSyncedShown).map { problem in
                NotSyncedStatus(path: problem.path, reason: problem.reason, ignoredBy: problem.ignoredBy.map(IgnoreLine.init))
            }
            if problems.count > ContainerStatus.notSyncedShown { entry.notSyncedMore = problems.count - ContainerStatus.notSyncedShown }
            entry.paused = container.isPaused
            if let held = container.heldDeletions {
                entry.heldDeletions = HeldDeletionsStatus(count: held.count, since: held.since,
                                                          sample: held.paths.prefix(HeldDeletionsStatus.sampleSize).map(\.rawValue))
            }
            if let unavailable = container.unavailability {
                entry.state = "unavailable"
                entry.reason = unavailable.reason
            }
            entry.mode = container.mode.rawValue
            entry.watcher = watches?.status(of: container.id)
            entry.recordStores = await recordStores?.status(of: container.id)
            let rules = container.ignoreRules
            let ignoreProblems = rules.problems.map(\.description) + (container.ignoreFileProblem.map { [$0] } ?? [])
            if !rules.isEmpty || !ignoreProblems.isEmpty {
                entry.ignore = IgnoreStatus(patterns: rules.patterns.count, problems: ignoreProblems)
            }
            if let retention = container.historyRetention {
                let kept = try container.historySize()
                entry.history = HistoryStatus(versions: kept.count, bytes: Int64(clamping: kept.bytes),
                                              maxAgeDays: Int(retention.maximumAge / HistoryRetention.day),
                                              maxBytes: retention.diskCap.map { Int64(clamping: $0) })
            }
            result.append(entry)
        }
        let peers = await peers()
        var status = AgentStatus(
            device: .init(id: identity.deviceID, name: deviceName), identityToken: identity.identityToken,
            agentVersion: AgentRuntime.version, listen: listening, discovery: await discovery(), containers: result, peers: peers,
            bytesToFetch: result.reduce(0) { $0 + $1.needBytes }, conflicts: result.reduce(0) { $0 + $1.conflicts },
            bytesSent: peers.reduce(0) { $0 + $1.bytesSent }, bytesReceived: peers.reduce(0) { $0 + $1.bytesReceived })
        status.paused = await engine.paused
        status.limits = await LimitMethods(limits: limits).status()
        status.containersNotSynced = notSynced.isEmpty ? nil : notSynced
        status.kvstores = keyValueStores
        return status
    }
}
