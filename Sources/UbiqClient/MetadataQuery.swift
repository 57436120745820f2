import UbiqControlAPI
import UbiqModel

/// A live search of one container: ubiq's `NSMetadataQuery`.
///
/// ``start(socketPath:)`` runs the gathering phase and returns what matches, sorted; from
/// then on ``updates`` yields each change the agent reports (items added, changed, removed,
/// as `NSMetadataQueryDidUpdate` does) together with the whole sorted result list, which
/// ``results`` also holds. ``stop()`` ends it.
///
/// ```swift
/// let query = MetadataQuery(container: id, glob: "*.txt", sort: .modified, descending: true)
/// let found = try await query.start()
/// for await update in query.updates {
///     show(update.results)
/// }
/// ```
///
/// A query reads the notifications of its connection, so it opens a connection of its own
/// and closes it when it stops; any number of queries can run side by side.
public actor MetadataQuery {
    private enum Phase {
        case idle
        case starting
        case running(UbiqConnection, pump: Task<Void, Never>)
        case stopped
    }

    public nonisolated let container: ContainerID
    public nonisolated let scope: QueryScope
    /// A ``NameGlob`` pattern for item names (`*` any run, `?` one character); every name when nil.
    public nonisolated let glob: String?
    public nonisolated let ignoreCase: Bool
    public nonisolated let order: QueryOrder
    /// Every change after the gathering phase, in order. It finishes when the query stops
    /// or its connection to the agent ends. Iterate it from one task.
    public nonisolated let updates: AsyncStream<QueryUpdate>

    /// The current results, sorted: the gathering phase's, then kept up to date.
    public private(set) var results: [QueryItem] = []
    /// The agent's id for this query once started.
    public private(set) var queryID: String?

    private let updateSink: AsyncStream<QueryUpdate>.Continuation
    private var phase = Phase.idle
    private var known = QueryResults()

    /// - Parameters:
    ///   - scope: `Documents/` (the default), the rest of the container, or both.
    ///   - glob: a pattern the item's name must match, such as `"*.txt"`; case counts
    ///     unless `ignoreCase`.
    ///   - sort: what the results are sorted by; ties go by path.
    public init(
        container: ContainerID, scope: QueryScope = .documents, glob: String? = nil, ignoreCase: Bool = false,
        sort: QuerySortKey = .name, descending: Bool = false
    ) {
        self.container = container
        self.scope = scope
        self.glob = glob
        self.ignoreCase = ignoreCase
        self.order = QueryOrder(sort, descending: descending)
        (updates, updateSink) = AsyncStream.makeStream(of: QueryUpdate.self)
    }

    deinit {
        if case .running(let connection, _) = phase { Task { await connection.close() } }
        updateSink.finish()
    }

    /// Connects to the agent at `socketPath`, runs the gathering phase and returns its
    /// results, sorted; updates follow on ``updates``. A query starts once.
    public func start(socketPath: String = ControlSocketPath.default()) async throws -> [QueryItem] {
        guard case .idle = phase else {
            throw MetadataQueryError(.alreadyStarted, "this query has already been started; make a new MetadataQuery to query again")
        }
        phase = .starting
        let connection: UbiqConnection
        do {
            connection = try await UbiqConnection.connect(socketPath: socketPath)
        } catch {
            if case .starting = phase { phase = .idle }
            throw error
        }
        // Taken before the call, so an update the agent sends right after its answer waits here.
        let notifications = connection.notifications
        let started: QueryStartResult
        do {
            started = try await connection.call(ControlMethod.queryStart.rawValue, params: startParams)
        } catch {
            await connection.close()
            if case .starting = phase { phase = .idle }
            throw error
        }
        guard case .starting = phase else {
            await connection.close()
            throw MetadataQueryError(.stopped, "the query was stopped while it started")
        }
        queryID = started.query
        known = QueryResults(started.items)
        results = started.items
        let pump = Task { [weak self] in
            for await notification in notifications { await self?.receive(notification) }
            await self?.connectionEnded()
        }
        phase = .running(connection, pump: pump)
        return results
    }

    /// Starts on the agent `client` talks to, over a connection of the query's own.
    public func start(on client: UbiqAgentClient) async throws -> [QueryItem] {
        try await start(socketPath: client.connection.socketPath)
    }

    /// Ends the query and its connection; ``updates`` finishes. ``results`` keeps the last
    /// results.
    public func stop() async {
        let running = phase
        phase = .stopped
        updateSink.finish()
        if case .running(let connection, let pump) = running {
            await connection.close()
            await pump.value
        }
    }

    private var startParams: QueryStartParams {
        QueryStartParams(container: container, scope: scope, glob: glob, ignoreCase: ignoreCase, sort: order.key,
                         descending: order.descending)
    }

    private func receive(_ notification: RPCNotification) async {
        switch notification.method {
        case ControlNotification.queryUpdate.rawValue:
            guard let update = try? notification.params?.decode(QueryUpdateNotice.self), update.query == queryID else { return }
            apply(update)
        case ControlNotification.subscriptionFellBehind.rawValue:
            guard let notice = try? notification.params?.decode(FellBehindNotice.self), notice.query == queryID else { return }
            await gatherAgain()
        default:
            return
        }
    }

    /// The agent ended the query because more changed at once than it follows for one query
    /// (a large folder moved in): the query starts again, and what differs from the results
    /// so far goes out as one update, so results and updates stay whole.
    private func gatherAgain() async {
        guard case .running(let connection, _) = phase else { return }
        do {
            let started: QueryStartResult = try await connection.call(ControlMethod.queryStart.rawValue, params: startParams)
            guard case .running = phase else { return }
            var latest: [PathBytes: QueryItem?] = [:]
            for path in known.items.keys { latest.updateValue(nil, forKey: path) }
            for item in started.items { latest[PathBytes(item.path)] = item }
            queryID = started.query
            guard let update = known.merge(latest, query: started.query, order: order) else { return }
            results = known.sorted(order)
            updateSink.yield(QueryUpdate(added: update.added, changed: update.changed, removed: update.removed, results: results))
        } catch {
            connectionEnded()
        }
    }

    private func apply(_ update: QueryUpdateNotice) {
        guard case .running = phase else { return }
        known.apply(update)
        results = known.sorted(order)
        updateSink.yield(QueryUpdate(added: update.added, changed: update.changed, removed: update.removed, results: results))
    }

    private func connectionEnded() {
        guard case .running = phase else { return }
        phase = .stopped
        updateSink.finish()
    }
}

/// One change to a running ``MetadataQuery``'s results.
public struct QueryUpdate: Hashable, Sendable {
    /// Items that now match, in the query's order.
    public var added: [QueryItem]
    /// Matching items whose metadata or sync state changed, in the query's order.
    public var changed: [QueryItem]
    /// Paths of items that no longer match: deleted, renamed (the new name is in `added`)
    /// or moved out of the scope.
    public var removed: [String]
    /// Every result after this change, sorted.
    public var results: [QueryItem]

    public init(added: [QueryItem], changed: [QueryItem], removed: [String], results: [QueryItem]) {
        self.added = added
        self.changed = changed
        self.removed = removed
        self.results = results
    }
}

/// A ``MetadataQuery`` used out of turn.
public struct MetadataQueryError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// `start` was called on a query that already started (or stopped).
        case alreadyStarted
        /// `stop` was called while `start` was still waiting for the agent.
        case stopped
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
