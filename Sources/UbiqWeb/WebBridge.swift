import UbiqClient
import UbiqControlAPI

/// The page's way to its agent: each call goes over the agent's own control socket, as the
/// CLI's do, so the page can do nothing the socket does not allow, and the agent's refusal
/// reaches the person as it is. Only the methods the page uses pass.
public struct WebBridge: Sendable {
    public let socketPath: String

    /// What the page reads, and the decisions a person makes on it.
    public static let methods: Set<String> = [
        "agent.status", "account.identity", "devices.list", "peers.list", "device.invite", "device.remove",
        "items.list", "item.status", "item.startDownloading", "item.evict",
        "versions.list", "versions.resolve", "versions.save", "versions.read", "conflicts.list",
        "history.list", "trash.list", "history.restore", "history.restoreFolder",
        "sync.pause", "sync.resume", "deletions.confirm", "deletions.restore", "limits.get", "limits.set", "ignore.get", "ignore.set",
        "kv.list", "records.fetch",
    ]

    public init(socketPath: String) { self.socketPath = socketPath }

    /// Answers a `POST /api/rpc` whose body is `{"method": …, "params": …}`: 200 with
    /// `{"result": …}`, 200 with `{"error": {"code", "message"}}` for the agent's refusal, 400
    /// for a body that is not such a call or names a method the page may not use, 503 when
    /// the agent does not answer.
    public func call(_ body: [UInt8]) async -> WebResponse {
        guard case .object(let members)? = try? JSONValue(parsing: body), case .string(let method)? = members["method"] else {
            return Self.json(400, ["error": ["code": .integer(-32600), "message": "a call is {\"method\": …, \"params\": {…}}"]])
        }
        guard Self.methods.contains(method) else {
            return Self.json(400, ["error": ["code": .integer(-32601), "message": .string("the page does not call \(method)")]])
        }
        let params = members["params"].flatMap { $0 == .null ? nil : $0 }
        do {
            let result = try await UbiqConnection.withConnection(socketPath: socketPath) { try await $0.call(method, params: params) }
            return Self.json(200, ["result": result])
        } catch let error as RPCError {
            return Self.json(200, ["error": ["code": .integer(Int64(error.code.rawValue)), "message": .string(error.message)]])
        } catch {
            return Self.unavailable(error)
        }
    }

    /// Answers `GET /api/events`: the agent's `events.item` notifications for every
    /// container, as server-sent events named by their method, over a socket connection of
    /// their own, with a comment every 15 s so that a browser that left is noticed. The stream
    /// ends when the agent goes (the browser's EventSource connects again), or the browser.
    public func events() async -> WebResponse {
        let connection: UbiqConnection
        do { connection = try await UbiqConnection.connect(socketPath: socketPath) } catch { return Self.unavailable(error) }
        do { _ = try await connection.call("events.subscribe") } catch {
            await connection.close()
            return Self.unavailable(error)
        }
        return WebResponse(status: 200, headers: [("Content-Type", "text/event-stream")]) { write in
            do {
                try await Self.forward(connection.notifications, to: write)
                await connection.close()
            } catch {
                await connection.close()
                throw error
            }
        }
    }

    /// Writes each notification as a server-sent event, and a comment every
    /// ``heartbeat``, until the notifications end or a write fails.
    private static func forward(_ notifications: AsyncStream<RPCNotification>,
                                to write: @escaping @Sendable ([UInt8]) async throws -> Void) async throws {
        try await write(Array("retry: 1000\n\n".utf8))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await notification in notifications {
                    try await write(Array("event: \(notification.method)\ndata: \(notification.json.serialized())\n\n".utf8))
                }
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: Self.heartbeat)
                    try await write(Array(": alive\n\n".utf8))
                }
            }
            // The first to end (the agent went, or a write failed) ends the other.
            try await group.next()
            group.cancelAll()
        }
    }

    static let heartbeat: Duration = .seconds(15)

    static func unavailable(_ error: any Error) -> WebResponse {
        json(503, ["error": ["code": .integer(-32007), "message": .string("the agent does not answer on its socket: \(error)")]])
    }

    static func json(_ status: Int, _ members: [String: JSONValue]) -> WebResponse {
        WebResponse(status: status, headers: [("Content-Type", "application/json")], body: JSONValue.object(members).serializedBytes)
    }
}
