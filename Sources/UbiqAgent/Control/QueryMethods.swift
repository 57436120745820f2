import Synchronization
import UbiqControl
import UbiqControlAPI
import UbiqModel

/// The metadata query methods of the control socket (`query.start`, `query.stop`) and
/// `item.status`, which reports one item as a query would.
struct QueryMethods: Sendable {
    let status: AgentStatusSource
    var batching = LiveQuery.Batching()
    private let registry = QueryRegistry()

    init(status: AgentStatusSource) { self.status = status }

    func handle(_ method: ControlMethod, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        switch method {
        case .queryStart:
            let request = try RPCParams.decode(QueryStartParams.self, from: params)
            let container = try status.container(request.container)
            let predicate: QueryPredicate
            do { predicate = try QueryPredicate(request) } catch { throw RPCError.invalidParams(error.message) }
            let query = try LiveQuery(id: registry.nextID(), container: container, predicate: predicate, order: request.order)
            registry.add(query, connection: connection.id)
            query.run(on: connection, batching: batching)
            await connection.onClose { [registry] in await registry.remove(query.id, connection: connection.id)?.stop() }
            connection.logger.debug("query started", metadata: [
                "query": "\(query.id)", "container": "\(container.id)", "scope": "\(predicate.scope)",
                "glob": "\(predicate.glob?.description ?? "*")", "items": "\(query.gathered.count)",
            ])
            return try JSONValue(encoding: QueryStartResult(query: query.id, items: query.gathered))
        case .queryStop:
            let request = try RPCParams.decode(QueryStopParams.self, from: params)
            guard let query = registry.remove(request.query, connection: connection.id) else {
                throw RPCError(.queryNotFound, "no query '\(request.query)' runs on this connection; "
                    + "use the id query.start answered, on the connection that started it")
            }
            await query.stop()
            connection.logger.debug("query stopped", metadata: ["query": "\(query.id)"])
            return try JSONValue(encoding: request)
        case .itemStatus:
            let request = try RPCParams.decode(ItemStatusParams.self, from: params)
            let container = try status.container(request.container)
            let path = try ControlPath.item(request.path)
            guard let indexed = try container.item(at: path), !indexed.item.deleted else {
                throw RPCError(.notFound, "'\(request.path)' is not in container \(request.container)")
            }
            return try JSONValue(encoding: LiveQuery.queryItem(indexed, in: container))
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }
}

/// The running queries, by id, each with the connection that started it.
final class QueryRegistry: Sendable {
    private struct State {
        var next = 1
        var queries: [String: (connection: UInt64, query: LiveQuery)] = [:]
    }

    private let state = Mutex(State())

    func nextID() -> String {
        state.withLock { state in
            defer { state.next += 1 }
            return "q\(state.next)"
        }
    }

    func add(_ query: LiveQuery, connection: UInt64) {
        state.withLock { $0.queries[query.id] = (connection, query) }
    }

    /// Removes and returns the query if `connection` started it.
    func remove(_ id: String, connection: UInt64) -> LiveQuery? {
        state.withLock { state in
            guard let entry = state.queries[id], entry.connection == connection else { return nil }
            state.queries[id] = nil
            return entry.query
        }
    }
}
