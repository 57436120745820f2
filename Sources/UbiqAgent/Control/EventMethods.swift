import UbiqControl
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `events.subscribe`: every item change the agent records, every change from a peer that
/// fails here, and every path on disk that cannot be synced, as `events.item` notifications.
struct EventMethods: Sendable {
    let status: AgentStatusSource

    func subscribe(params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        let request = try RPCParams.decode(EventsSubscribeParams.self, from: params)
        let containers = try request.container.map { [try status.container($0)] } ?? status.containers
        for container in containers {
            await connection.forward(container.itemChanges(), as: .eventsItem, Self.event)
            await connection.forward(container.failureEvents(), as: .eventsItem) { failure in
                let item = failure.item
                return ItemEvent(container: container.id, path: item.path.rawValue, change: "failed", to: nil, kind: item.kind,
                                 origin: "remote", version: "\(item.version)", modifiedBy: item.modifiedBy,
                                 conflicts: item.conflicts.count, error: failure.reason)
            }
            await connection.forward(container.problemEvents(), as: .eventsItem) { problem in
                ItemEvent(container: container.id, path: problem.path, change: "failed", to: nil, kind: problem.kind,
                          origin: "local", version: "", modifiedBy: container.device, conflicts: 0, error: problem.reason)
            }
        }
        return try JSONValue(encoding: EventsSubscribeResult(containers: containers.map(\.id)))
    }

    static func event(_ change: ItemChange) -> ItemEvent {
        let item = change.item
        let kind = change.movedTo != nil ? "moved" : item.deleted ? "deleted" : "changed"
        return ItemEvent(container: change.container, path: item.path.rawValue, change: kind, to: change.movedTo?.rawValue,
                         kind: item.kind, origin: change.origin.rawValue, version: "\(item.version)",
                         modifiedBy: item.modifiedBy, conflicts: item.conflicts.count)
    }
}
