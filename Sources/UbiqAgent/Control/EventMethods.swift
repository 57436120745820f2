import UbiqControl
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `events.subscribe`: every item change the agent records, as `events.item` notifications.
struct EventMethods: Sendable {
    let status: AgentStatusSource

    func subscribe(params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        let request = try RPCParams.decode(EventsSubscribeParams.self, from: params)
        let containers = try request.container.map { [try status.container($0)] } ?? status.containers
        for container in containers {
            let changes = container.itemChanges()
            let forwarder = Task {
                for await change in changes {
                    do {
                        try await connection.notify(method: ControlNotification.eventsItem.rawValue,
                                                    params: try JSONValue(encoding: Self.event(change)))
                    } catch {
                        return
                    }
                }
            }
            await connection.onClose { forwarder.cancel() }
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
