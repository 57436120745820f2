import UbiqControlAPI
import UbiqModel

/// A record store of a container, as an application uses it through its agent (Core Data
/// in iCloud, for a LAN): saves transactions all or nothing, fetches records, and hears what
/// each import of other devices' transactions did.
public struct RecordStore: Sendable {
    public let client: UbiqAgentClient
    public let container: ContainerID
    public let name: String

    public init(client: UbiqAgentClient, container: ContainerID, name: String) {
        self.client = client
        self.container = container
        self.name = name
    }

    /// Saves `changes` as one transaction; throws an `RPCError` (`.invalidRecord`,
    /// `.recordLimit`) and saves nothing when one of them cannot be made.
    @discardableResult
    public func save(_ changes: [RecordChange]) async throws -> RecordsSaveResult {
        try await client.connection.call(ControlMethod.recordsSave.rawValue,
                                          params: RecordsSaveParams(container: container, store: name, changes: changes.map(RecordJSON.params)))
    }

    /// The live records of `entity` that match `predicate`, sorted, at most `limit`.
    public func fetch(_ entity: String, where predicate: RecordPredicate? = nil, sort: [RecordQuery.Sort] = [],
                      limit: Int? = nil) async throws -> [(key: RecordKey, values: [RecordName: RecordValue])] {
        let result: RecordsFetchResult = try await client.connection.call(ControlMethod.recordsFetch.rawValue, params: RecordsFetchParams(
            container: container, store: name, entity: entity, where: predicate.map(RecordJSON.json),
            sort: sort.isEmpty ? nil : sort.map { RecordSortParams(attribute: $0.attribute.rawValue, descending: $0.ascending ? nil : true) },
            limit: limit))
        return try result.records.map { entry in
            let key = RecordKey(entity: try RecordJSON.name(entry.entity, path: "entity"), id: try RecordJSON.recordID(entry.id, path: "id"))
            var values: [RecordName: RecordValue] = [:]
            for (name, json) in entry.attributes { values[try RecordJSON.name(name, path: "attributes")] = try RecordJSON.value(json, path: name) }
            return (key, values)
        }
    }

    /// Deletes the store on every device: its change logs go from the container, and each
    /// agent removes its local store as the deletion reaches it. Returns how many logs went.
    @discardableResult
    public func deleteStore() async throws -> Int {
        let result: RecordsDeleteStoreResult = try await client.connection.call(ControlMethod.recordsDeleteStore.rawValue,
                                                                                params: RecordsStoreParams(container: container, store: name))
        return result.logs
    }

    /// Subscribes to the store's imports and returns them as they arrive. This reads the
    /// connection's notifications, so use one connection per subscription.
    public func imports() async throws -> AsyncStream<RecordsDidImportNotice> {
        let _: RecordsStoreParams = try await client.connection.call(ControlMethod.recordsSubscribe.rawValue,
                                                                     params: RecordsStoreParams(container: container, store: name))
        let notifications = client.connection.notifications
        let (container, name) = (container, name)
        return AsyncStream { continuation in
            let task = Task {
                for await notification in notifications where notification.method == ControlNotification.recordsDidImport.rawValue {
                    if let notice = try? notification.params?.decode(RecordsDidImportNotice.self), notice.container == container, notice.store == name {
                        continuation.yield(notice)
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
