import Foundation
import Synchronization
import UbiqControl
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// The `kv.*` methods of the control socket over this device's key-value stores.
struct KeyValueMethods: Sendable {
    let stores: [KeyValueStoreID: KeyValueStore]

    /// How long `kv.synchronize` waits for peers unless the client says otherwise.
    static let defaultSynchronizeTimeout = 30.0

    func handle(_ method: ControlMethod, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        switch method {
        case .kvGet:
            let request = try RPCParams.decode(KeyValueGetParams.self, from: params)
            let value = try await store(request.store).value(for: request.key)
            return try JSONValue(encoding: KeyValueGetResult(key: request.key, value: value.map(PropertyListJSON.json) ?? .null))
        case .kvSet:
            let request = try RPCParams.decode(KeyValueSetParams.self, from: params)
            return try await write(try request.changes(), to: try store(request.store))
        case .kvRemove:
            let request = try RPCParams.decode(KeyValueRemoveParams.self, from: params)
            let keys: [String] = switch (request.key, request.keys) {
            case (let key?, nil): [key]
            case (nil, let keys?): keys
            default: throw RPCError.invalidParams("give either key or keys (an array)")
            }
            return try await write(Dictionary(keys.map { ($0, nil) }, uniquingKeysWith: { a, _ in a }), to: try store(request.store))
        case .kvList:
            let request = try RPCParams.decode(KeyValueStoreParams.self, from: params)
            let store = try store(request.store)
            let values = await store.values()
            let usage = KeyValueLimits.Usage(values.values)
            return try JSONValue(encoding: KeyValueListResult(
                store: store.id, values: values.mapValues(PropertyListJSON.json),
                usage: .init(keys: usage.keys, bytes: usage.bytes), limits: .init(store.limits)))
        case .kvSynchronize:
            let request = try RPCParams.decode(KeyValueStoreParams.self, from: params)
            let timeout = try ControlTimeout.duration(request.timeout, default: Self.defaultSynchronizeTimeout)
            let outcome = try await store(request.store).synchronize(timeout: timeout)
            return try JSONValue(encoding: KeyValueSynchronizeResult(acknowledged: outcome.acknowledged, pending: outcome.pending))
        case .kvSubscribe:
            let request = try RPCParams.decode(KeyValueSubscribeParams.self, from: params)
            let chosen = try request.store.map { [try store($0)] } ?? stores.values.sorted { $0.id < $1.id }
            for store in chosen { await subscribe(connection, to: store) }
            return try JSONValue(encoding: KeyValueSubscribeResult(stores: chosen.map(\.id)))
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    private func store(_ id: KeyValueStoreID) throws(RPCError) -> KeyValueStore {
        guard let store = stores[id] else {
            let known = stores.keys.map(\.rawValue).sorted()
            throw RPCError(.storeNotFound, "no key-value store '\(id)' on this device"
                + (known.isEmpty ? "; start ubiqd with --kvstore \(id)" : " (it has: \(known.joined(separator: ", ")))"))
        }
        return store
    }

    private func write(_ changes: [String: PropertyListValue?], to store: KeyValueStore) async throws -> JSONValue {
        do {
            try await store.set(changes)
        } catch let error as KeyValueLimitError {
            let code: RPCError.Code = switch error.code {
            case .invalidKey: .invalidKey
            case .keyTooLong: .keyTooLong
            case .valueTooLarge: .valueTooLarge
            case .tooManyKeys: .tooManyKeys
            case .storeTooLarge: .storeTooLarge
            }
            throw RPCError(code, error.reason + "; nothing was written")
        }
        return try JSONValue(encoding: KeyValueWriteResult(keys: changes.keys.sorted()))
    }

    /// Forwards the store's change notices to the client until its connection ends or the
    /// subscription ends (the client fell behind, or the store went away with a restart); a
    /// second subscription to the same store on one connection while one runs changes nothing.
    private func subscribe(_ connection: ControlConnection, to store: KeyValueStore) async {
        let subscribed = connection.attachment(Subscriptions.self) { Subscriptions() }.value
        guard subscribed.stores.withLock({ $0.insert(store.id).inserted }) else { return }
        let id = store.id
        await connection.forward(store.changes(), as: .kvDidChangeExternally, ended: { _ = subscribed.stores.withLock { $0.remove(id) } }) { change in
            KeyValueChangeNotice(
                reason: change.reason.rawValue, store: change.store, keys: change.keys,
                conflicts: change.reason == .conflict ? change.conflicts.map {
                    .init(key: $0.key, winner: $0.winner.map(PropertyListJSON.json) ?? .null, winnerDevice: $0.winnerDevice,
                          loser: $0.loser.map(PropertyListJSON.json) ?? .null, loserDevice: $0.loserDevice)
                } : nil)
        }
    }
}

/// The stores one control connection already hears from.
final class Subscriptions: Sendable {
    let stores = Mutex<Set<KeyValueStoreID>>([])
}
