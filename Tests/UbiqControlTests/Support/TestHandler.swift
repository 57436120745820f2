import Synchronization
import UbiqControl
import UbiqControlAPI

struct HandlerFailure: Error, CustomStringConvertible {
    var description: String { "the disk caught fire" }
}

/// Answers the stage's methods from ``Fixtures`` plus a few `test.*` methods that exercise
/// the server: notifications, cleanups, concurrency and failures.
final class TestHandler: ControlHandler {
    /// `test.wait` blocks until `test.release` opens this.
    let released = Gate()
    /// Opened when a `test.wait` request has reached the handler.
    let waitStarted = Gate()
    /// Opened by the cleanup that `test.onClose` registers.
    let cleanedUp = Gate()
    /// The connections that sent `kv.subscribe`, in order; `test.kvFallBehind` tells the first
    /// one it fell behind.
    let keyValueSubscribers = Mutex<[ControlConnection]>([])
    /// The presenters registered, in order (their ids count from 1); `test.presenterFallBehind`
    /// moves the first one's item and then ends it.
    let presenters = Mutex<[(connection: ControlConnection, path: String)]>([])

    func handle(method: String, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        switch method {
        case ControlMethod.agentStatus.rawValue:
            return try JSONValue(encoding: Fixtures.status)
        case ControlMethod.peersList.rawValue:
            return try JSONValue(encoding: Fixtures.peers)
        case ControlMethod.accountIdentity.rawValue:
            return try JSONValue(encoding: Fixtures.identity)
        case ControlMethod.itemsList.rawValue:
            let params = try RPCParams.decode(ItemsListParams.self, from: params)
            return try JSONValue(encoding: Fixtures.items(under: params.path))
        case ControlMethod.versionsList.rawValue:
            let params = try RPCParams.decode(VersionsListParams.self, from: params)
            return try JSONValue(encoding: Fixtures.versions(of: params.path))
        case ControlMethod.versionsResolve.rawValue:
            let params = try RPCParams.decode(VersionsResolveParams.self, from: params)
            switch params.keep {
            case .current: return try JSONValue(encoding: VersionsResolveResult(path: params.path, kept: "AAAAAAAA-3"))
            case .version(Fixtures.conflictID): return try JSONValue(encoding: VersionsResolveResult(path: params.path, kept: Fixtures.conflictID))
            case .version(let other): throw RPCError(.conflictNotFound, "no conflict version \(other) of \(params.path)")
            }
        case ControlMethod.kvSubscribe.rawValue:
            keyValueSubscribers.withLock { $0.append(connection) }
            return try JSONValue(encoding: KeyValueSubscribeResult(stores: [Fixtures.store]))
        case ControlMethod.kvList.rawValue:
            return try JSONValue(encoding: KeyValueListResult(
                store: Fixtures.store, values: ["level": .integer(3), "name": "ada"], usage: .init(keys: 2, bytes: 16),
                limits: .init(.iCloud)))
        case "test.kvFallBehind":
            guard let subscriber = keyValueSubscribers.withLock({ $0.first }) else { throw RPCError.methodNotFound(method) }
            try await subscriber.notify(method: ControlNotification.kvDidChangeExternally.rawValue, params: try JSONValue(
                encoding: KeyValueChangeNotice(reason: "remoteChange", store: Fixtures.store, keys: ["level"])))
            try await subscriber.notify(method: ControlNotification.subscriptionFellBehind.rawValue, params: try JSONValue(
                encoding: FellBehindNotice(method: ControlNotification.kvDidChangeExternally.rawValue)))
            return true
        case ControlMethod.presenterRegister.rawValue:
            let params = try RPCParams.decode(PresenterRegisterParams.self, from: params)
            let id = presenters.withLock { $0.append((connection, params.path)); return UInt64($0.count) }
            return try JSONValue(encoding: PresenterID(presenter: id))
        case "test.presenterFallBehind":
            guard let (subscriber, path) = presenters.withLock({ $0.first }) else { throw RPCError.methodNotFound(method) }
            try await subscriber.notify(method: ControlNotification.presenterDidMove.rawValue, params: try JSONValue(
                encoding: PresenterEvent(presenter: 1, container: Fixtures.container, path: path, to: "Documents/moved.txt", origin: "remote")))
            // Another presenter's notices on the same connection are not this one's.
            try await subscriber.notify(method: ControlNotification.subscriptionFellBehind.rawValue, params: try JSONValue(
                encoding: FellBehindNotice(method: FellBehindNotice.presenterMethod, presenter: 99)))
            try await subscriber.notify(method: ControlNotification.presenterDidDelete.rawValue, params: try JSONValue(
                encoding: PresenterEvent(presenter: 99, container: Fixtures.container, path: "Documents/moved.txt", origin: "local")))
            try await subscriber.notify(method: ControlNotification.subscriptionFellBehind.rawValue, params: try JSONValue(
                encoding: FellBehindNotice(method: FellBehindNotice.presenterMethod, presenter: 1)))
            return true
        case "test.echo":
            return params ?? .null
        case "test.notify":
            let count = params?["count"]?.integerValue ?? 0
            for n in 0..<count { try await connection.notify(method: "test.tick", params: ["n": .integer(n)]) }
            return .integer(count)
        case "test.onClose":
            await connection.onClose { self.cleanedUp.open() }
            return true
        case "test.wait":
            waitStarted.open()
            await released.wait()
            return "released"
        case "test.release":
            released.open()
            return true
        case "test.fail":
            throw HandlerFailure()
        default:
            throw RPCError.methodNotFound(method)
        }
    }
}
