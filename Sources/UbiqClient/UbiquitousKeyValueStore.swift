import Foundation
import UbiqControlAPI
import UbiqModel

/// iCloud's `NSUbiquitousKeyValueStore` on ubiq: one key-value store of the local agent,
/// with typed getters and setters, as async calls over the control socket.
///
/// Reads and writes go to the local agent and return at once; the agent sends writes to
/// its peers. A getter of a key that has no value (or a value of another type) answers like
/// iCloud: nil, or 0 / false for numbers and bools. Writes that break a limit throw an
/// `RPCError` (`.keyTooLong`, `.valueTooLarge`, `.tooManyKeys`, `.storeTooLarge`) and
/// write nothing.
///
/// Calls use the connection given (or opened by ``open(_:socketPath:)``); each
/// ``externalChanges()`` stream opens a connection of its own, because a subscription's
/// notifications arrive on the connection that made it, and closes it when the stream ends.
public final class UbiquitousKeyValueStore: Sendable {
    public let store: KeyValueStoreID
    public let client: UbiqAgentClient
    private let ownsConnection: Bool

    /// A store over an existing connection, which stays the caller's to close.
    public init(_ store: KeyValueStoreID, client: UbiqAgentClient) {
        self.store = store
        self.client = client
        ownsConnection = false
    }

    private init(_ store: KeyValueStoreID, owning client: UbiqAgentClient) {
        self.store = store
        self.client = client
        ownsConnection = true
    }

    /// Connects to the agent at `socketPath` for this store; ``close()`` ends the connection.
    public static func open(_ store: KeyValueStoreID, socketPath: String = ControlSocketPath.default()) async throws -> UbiquitousKeyValueStore {
        UbiquitousKeyValueStore(store, owning: try await UbiqAgentClient.connect(socketPath: socketPath))
    }

    /// Closes the connection if ``open(_:socketPath:)`` made it.
    public func close() async {
        if ownsConnection { await client.close() }
    }

    // MARK: reading

    public func object(forKey key: String) async throws -> PropertyListValue? {
        try await client.value(store: store, key: key)
    }

    public func string(forKey key: String) async throws -> String? {
        try await object(forKey: key)?.stringValue
    }

    /// The integer at `key`; 0 when absent or not a number, as in iCloud.
    public func longLong(forKey key: String) async throws -> Int64 {
        try await object(forKey: key)?.int64Value ?? 0
    }

    /// The number at `key`; 0 when absent or not a number.
    public func double(forKey key: String) async throws -> Double {
        try await object(forKey: key)?.doubleValue ?? 0
    }

    /// The bool at `key` (a number counts as true when not zero); false when absent.
    public func bool(forKey key: String) async throws -> Bool {
        try await object(forKey: key)?.boolValue ?? false
    }

    public func data(forKey key: String) async throws -> Data? {
        try await object(forKey: key)?.dataValue
    }

    public func date(forKey key: String) async throws -> Date? {
        try await object(forKey: key)?.dateValue
    }

    public func array(forKey key: String) async throws -> [PropertyListValue]? {
        try await object(forKey: key)?.arrayValue
    }

    public func dictionary(forKey key: String) async throws -> [String: PropertyListValue]? {
        try await object(forKey: key)?.dictionaryValue
    }

    /// Every key and its value.
    public func dictionaryRepresentation() async throws -> [String: PropertyListValue] {
        try await client.values(store: store)
    }

    // MARK: writing

    public func set(_ value: PropertyListValue, forKey key: String) async throws {
        try await set([key: value])
    }

    /// Writes several keys at once, all or nothing.
    public func set(_ values: [String: PropertyListValue]) async throws {
        try await client.set(store: store, values)
    }

    public func set(_ value: String, forKey key: String) async throws { try await set(.string(value), forKey: key) }
    public func set(_ value: Int64, forKey key: String) async throws { try await set(.integer(value), forKey: key) }
    public func set(_ value: Int, forKey key: String) async throws { try await set(.integer(Int64(value)), forKey: key) }
    public func set(_ value: Double, forKey key: String) async throws { try await set(.double(value), forKey: key) }
    public func set(_ value: Bool, forKey key: String) async throws { try await set(.bool(value), forKey: key) }
    public func set(_ value: Data, forKey key: String) async throws { try await set(PropertyListValue(value), forKey: key) }
    public func set(_ value: Date, forKey key: String) async throws { try await set(PropertyListValue(value), forKey: key) }
    public func set(_ value: [PropertyListValue], forKey key: String) async throws { try await set(.array(value), forKey: key) }
    public func set(_ value: [String: PropertyListValue], forKey key: String) async throws {
        try await set(.dictionary(value), forKey: key)
    }

    public func removeObject(forKey key: String) async throws {
        try await client.remove(store: store, keys: [key])
    }

    /// Waits until every connected peer that shares the store holds what this device holds
    /// now; true when all confirmed within `timeout`. With no peer connected there is nothing
    /// to wait for, and the answer is true.
    @discardableResult
    public func synchronize(timeout: Duration = .seconds(30)) async throws -> Bool {
        try await client.synchronize(store: store, timeout: timeout).complete
    }

    // MARK: changes from other devices

    /// Subscribes, on a connection of its own, to changes of this store that came from other
    /// devices (iCloud's `didChangeExternallyNotification`). The subscription is live when
    /// this returns. The stream ends when the consumer stops iterating (which closes the
    /// connection) and throws ``UbiqClientError`` `.connectionClosed` when the agent goes away.
    public func externalChanges() async throws -> AsyncThrowingStream<ExternalChange, any Error> {
        let watcher = try await UbiqAgentClient.connect(socketPath: client.connection.socketPath)
        let notices: AsyncStream<KeyValueChangeNotice>
        do {
            notices = try await watcher.keyValueChanges(store: store)
        } catch {
            await watcher.close()
            throw error
        }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: ExternalChange.self)
        let task = Task {
            do {
                for await notice in notices { continuation.yield(try ExternalChange(notice)) }
                if Task.isCancelled {
                    continuation.finish()
                } else {
                    continuation.finish(throwing: UbiqClientError(.connectionClosed, "the agent closed the connection of the change subscription"))
                }
            } catch {
                continuation.finish(throwing: error)
            }
            await watcher.close()
        }
        continuation.onTermination = { _ in
            task.cancel()
            Task { await watcher.close() }
        }
        return stream
    }
}
