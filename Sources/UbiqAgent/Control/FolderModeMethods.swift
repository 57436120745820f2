import UbiqControlAPI
import UbiqModel
import UbiqSync

/// What a container's mode holds back and the commands that end it: `container.differences`
/// (a send-only container's unapplied peer changes, a receive-only container's unsent local
/// ones), `container.override` (send-only) and `container.revert` (receive-only).
struct FolderModeMethods: Sendable {
    let status: AgentStatusSource

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        let container = try status.container(try RPCParams.decode(ContainerURLParams.self, from: params).container)
        switch method {
        case .containerDifferences:
            return try JSONValue(encoding: try await container.differences().map(Self.entry))
        case .containerOverride:
            guard container.mode == .sendOnly else {
                throw RPCError(.invalidParams, "\(container.id) is \(container.mode.rawValue); override takes back a send-only container's differences")
            }
            return try JSONValue(encoding: OverrideResult(overridden: try await container.overrideDifferences().map(\.rawValue)))
        case .containerRevert:
            guard container.mode == .receiveOnly else {
                throw RPCError(.invalidParams, "\(container.id) is \(container.mode.rawValue); revert undoes a receive-only container's own changes")
            }
            let outcome: RevertOutcome
            do { outcome = try await container.revertHeldChanges() } catch let error as ScanBusy {
                throw RPCError(.unavailable, error.description)
            }
            return try JSONValue(encoding: RevertResult(
                reverted: outcome.reverted.map(\.rawValue),
                failed: outcome.failed.sorted { $0.key < $1.key }.map { RevertFailure(path: $0.key.rawValue, reason: $0.value) }))
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    static func entry(_ difference: ContainerSync.Difference) -> DifferenceEntry {
        let local = difference.local
        return DifferenceEntry(
            path: difference.path.rawValue, changedHere: difference.changedHere,
            localVersion: difference.changedHere ? nil : local.map { "\($0.version)" },
            localDeleted: difference.changedHere && local == nil,
            localSize: difference.changedHere && local?.kind == .file ? local.map { Int64($0.size) } : nil,
            peerVersion: difference.peer.map { "\($0.version)" }, peerModifiedBy: difference.peer?.modifiedBy,
            peerDeleted: difference.peer?.deleted ?? false)
    }
}
