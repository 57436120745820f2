import UbiqControlAPI
import UbiqModel

/// The key-value store methods (`kv.*`), with values as ``PropertyListValue``.
extension UbiqAgentClient {
    /// The value of `key`, nil when the store does not hold it.
    public func value(store: KeyValueStoreID, key: String) async throws -> PropertyListValue? {
        let result: KeyValueGetResult = try await connection.call(
            ControlMethod.kvGet.rawValue, params: KeyValueGetParams(store: store, key: key))
        return result.value.isNull ? nil : try PropertyListJSON.value(result.value)
    }

    /// Writes several keys at once, all or nothing; throws an `RPCError` naming the broken
    /// limit (`.keyTooLong`, `.valueTooLarge`, `.tooManyKeys`, `.storeTooLarge`) and writes
    /// nothing.
    public func set(store: KeyValueStoreID, _ values: [String: PropertyListValue]) async throws {
        let _: KeyValueWriteResult = try await connection.call(
            ControlMethod.kvSet.rawValue, params: KeyValueSetParams(store: store, values: values.mapValues(PropertyListJSON.json)))
    }

    public func remove(store: KeyValueStoreID, keys: [String]) async throws {
        let _: KeyValueWriteResult = try await connection.call(
            ControlMethod.kvRemove.rawValue, params: KeyValueRemoveParams(store: store, keys: keys))
    }

    /// Every key and value, with the store's usage and limits (values in property-list JSON).
    public func list(store: KeyValueStoreID) async throws -> KeyValueListResult {
        try await connection.call(ControlMethod.kvList.rawValue, params: KeyValueStoreParams(store: store))
    }

    /// Every key and value, typed.
    public func values(store: KeyValueStoreID) async throws -> [String: PropertyListValue] {
        var result: [String: PropertyListValue] = [:]
        for (key, value) in try await list(store: store).values { result[key] = try PropertyListJSON.value(value) }
        return result
    }

    /// Returns once every connected peer holds what this device holds now, or after `timeout`.
    public func synchronize(store: KeyValueStoreID, timeout: Duration = .seconds(30)) async throws -> KeyValueSynchronizeResult {
        let seconds = ControlTimeout.seconds(timeout)
        return try await connection.call(ControlMethod.kvSynchronize.rawValue, params: KeyValueStoreParams(store: store, timeout: seconds))
    }

    /// Subscribes to external changes of one store (every store when nil) and returns them as
    /// they arrive. This reads the connection's notifications, so use one connection per
    /// subscription. If the agent ends the subscription because this reader fell behind, it
    /// subscribes again and posts a `remoteChange` of every key of each store, since any of
    /// them may have changed meanwhile.
    public func keyValueChanges(store: KeyValueStoreID? = nil) async throws -> AsyncStream<KeyValueChangeNotice> {
        let _: KeyValueSubscribeResult = try await connection.call(
            ControlMethod.kvSubscribe.rawValue, params: KeyValueSubscribeParams(store: store))
        let notifications = connection.notifications
        return AsyncStream { continuation in
            let task = Task {
                for await notification in notifications {
                    switch notification.method {
                    case ControlNotification.kvDidChangeExternally.rawValue:
                        if let params = notification.params, let notice = try? params.decode(KeyValueChangeNotice.self) {
                            continuation.yield(notice)
                        }
                    case ControlNotification.subscriptionFellBehind.rawValue:
                        guard let notice = try? notification.params?.decode(FellBehindNotice.self),
                              notice.method == ControlNotification.kvDidChangeExternally.rawValue else { continue }
                        guard let everything = try? await resubscribe(store: store) else { break }
                        for notice in everything { continuation.yield(notice) }
                    default:
                        continue
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Subscribes again and returns, per store, a notice naming every key it holds.
    private func resubscribe(store: KeyValueStoreID?) async throws -> [KeyValueChangeNotice] {
        let subscribed: KeyValueSubscribeResult = try await connection.call(
            ControlMethod.kvSubscribe.rawValue, params: KeyValueSubscribeParams(store: store))
        var notices: [KeyValueChangeNotice] = []
        for store in subscribed.stores {
            let keys = try await list(store: store).values.keys.sorted()
            if !keys.isEmpty { notices.append(KeyValueChangeNotice(reason: "remoteChange", store: store, keys: keys)) }
        }
        return notices
    }
}
