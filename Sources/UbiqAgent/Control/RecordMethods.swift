import Foundation
import Synchronization
import UbiqControl
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// The `records.*` methods of the control socket over this account's record stores.
struct RecordMethods: Sendable {
    let stores: RecordStores
    let status: AgentStatusSource
    /// More records than this a fetch never returns at once.
    static let maxLimit = 100_000

    func handle(_ method: ControlMethod, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        switch method {
        case .recordsSave:
            let request = try RPCParams.decode(RecordsSaveParams.self, from: params)
            var changes: [RecordChange] = []
            for (index, change) in request.changes.enumerated() { changes.append(try RecordJSON.change(change, at: index)) }
            let (container, store) = try await open(request.container, request.store)
            let transaction: RecordTransaction
            do { transaction = try await store.save(changes) } catch let error as RecordError {
                throw RPCError(error.code == .tooLarge ? .recordLimit : error.code == .storeDeleted ? .unavailable : .invalidRecord,
                               error.reason + "; nothing was saved")
            }
            let log = try RecordLogLayout.path(store: transaction.store, device: transaction.author, counter: transaction.counter)
            // Recorded now, so peers hear of it without waiting for the watcher.
            await container.localChanges([log])
            await stores.maintain(store.name, in: request.container)
            return try JSONValue(encoding: RecordsSaveResult(transaction: "\(transaction.dot)", log: log.rawValue))
        case .recordsFetch:
            let request = try RPCParams.decode(RecordsFetchParams.self, from: params)
            let entity = try RecordJSON.name(request.entity, path: "entity")
            var predicate: RecordPredicate?
            if let json = request.where { predicate = try RecordJSON.predicate(json) }
            var sort: [RecordQuery.Sort] = []
            for (index, order) in (request.sort ?? []).enumerated() {
                sort.append(.init(try RecordJSON.name(order.attribute, path: "sort[\(index)].attribute"), ascending: !(order.descending ?? false)))
            }
            if let limit = request.limit, !(0...Self.maxLimit).contains(limit) {
                throw RPCError.invalidParams("limit is \(limit); give 0 to \(Self.maxLimit)")
            }
            let (_, store) = try await open(request.container, request.store)
            let records = try await store.fetch(RecordQuery(entity: entity, predicate: predicate, sort: sort, limit: request.limit ?? Self.maxLimit))
            return try JSONValue(encoding: RecordsFetchResult(records: records.map {
                RecordEntry(entity: $0.key.entity.rawValue, id: $0.key.id.rawValue,
                            attributes: Dictionary(uniqueKeysWithValues: $0.values.map { ($0.key.rawValue, RecordJSON.json($0.value)) }))
            }))
        case .recordsSubscribe:
            let request = try RPCParams.decode(RecordsStoreParams.self, from: params)
            let (_, store) = try await open(request.container, request.store)
            let subscribed = connection.attachment(RecordSubscriptions.self) { RecordSubscriptions() }.value
            let key = "\(request.container)/\(store.name)"
            if subscribed.stores.withLock({ $0.insert(key).inserted }) {
                let (container, name) = (request.container, store.name)
                await connection.forward(store.didImport(), as: .recordsDidImport, ended: { _ = subscribed.stores.withLock { $0.remove(key) } }) {
                    RecordJSON.notice($0, container: container, store: name)
                }
            }
            return try JSONValue(encoding: RecordsStoreParams(container: request.container, store: store.name.rawValue))
        case .recordsDeleteStore:
            let request = try RPCParams.decode(RecordsStoreParams.self, from: params)
            let name = try RecordJSON.store(request.store)
            _ = try status.container(request.container)
            let logs: Int
            do { logs = try await stores.delete(name, in: request.container) } catch let error as RecordStoresError {
                throw RPCError(.unavailable, error.description)
            }
            return try JSONValue(encoding: RecordsDeleteStoreResult(container: request.container, store: name.rawValue, logs: logs))
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    private func open(_ container: ContainerID, _ raw: String) async throws -> (ContainerSync, RecordStore) {
        let sync = try status.container(container)
        let name = try RecordJSON.store(raw)
        do { return (sync, try await stores.caughtUp(name, in: container)) } catch let error as RecordError where error.code == .storeDeleted {
            throw RPCError(.unavailable, error.reason)
        }
    }
}

/// The record stores one control connection already hears from.
final class RecordSubscriptions: Sendable {
    let stores = Mutex<Set<String>>([])
}
