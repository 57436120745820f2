import Foundation
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `deletions.list`, `deletions.confirm` and `deletions.restore`: a person's decision on a
/// mass deletion the agent held back (DESIGN.md §3).
struct DeletionMethods: Sendable {
    let status: AgentStatusSource

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        let request = try RPCParams.decode(ContainerURLParams.self, from: params)
        let container = try status.container(request.container)
        switch method {
        case .deletionsList:
            let held = container.heldDeletions
            return try JSONValue(encoding: DeletionsListResult(container: container.id, count: held?.count ?? 0, since: held?.since,
                                                               paths: held?.paths.map(\.rawValue) ?? []))
        case .deletionsConfirm:
            do {
                return try JSONValue(encoding: DeletionsDecisionResult(container: container.id, confirmed: try await container.confirmDeletions()))
            } catch let error as ScanBusy {
                throw RPCError(.unavailable, error.description)
            } catch let error as FolderUnavailableError {
                throw RPCError(.unavailable, error.description)
            }
        case .deletionsRestore:
            do {
                let restored = try await container.restoreDeletions()
                return try JSONValue(encoding: DeletionsDecisionResult(container: container.id, restoring: restored.restoring.count,
                                                                       newer: restored.newer.count, gone: restored.gone.map(\.rawValue)))
            } catch let error as ScanBusy {
                throw RPCError(.unavailable, error.description)
            } catch let error as FolderUnavailableError {
                throw RPCError(.unavailable, error.description)
            }
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }
}
