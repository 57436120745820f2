/// A live query's results by path. The agent keeps the set its client has been told of and
/// turns the latest state of changed paths into a `query.update`; a client applies those
/// updates to its own copy. Both sort it with the query's ``QueryOrder``.
public struct QueryResults: Hashable, Sendable {
    public private(set) var items: [PathBytes: QueryItem]

    public init(_ items: some Sequence<QueryItem> = []) {
        self.items = Dictionary(items.map { (PathBytes($0.path), $0) }, uniquingKeysWith: { _, last in last })
    }

    public var count: Int { items.count }

    /// Takes the latest state of some paths (nil: gone, or no longer a match) and returns
    /// what changed for the client: nil when nothing did.
    public mutating func merge(_ latest: [PathBytes: QueryItem?], query: String, order: QueryOrder) -> QueryUpdateNotice? {
        var update = QueryUpdateNotice(query: query)
        for (path, now) in latest {
            switch (items[path], now) {
            case (nil, let now?): update.added.append(now)
            case (let before?, let now?) where before != now: update.changed.append(now)
            case (_?, nil): update.removed.append(path.path)
            default: continue
            }
            items[path] = now
        }
        guard !update.isEmpty else { return nil }
        update.added = order.sorted(update.added)
        update.changed = order.sorted(update.changed)
        update.removed.sort()
        return update
    }

    /// Applies an update the agent sent.
    public mutating func apply(_ update: QueryUpdateNotice) {
        for path in update.removed { items[PathBytes(path)] = nil }
        for item in update.added + update.changed { items[PathBytes(item.path)] = item }
    }

    public func sorted(_ order: QueryOrder) -> [QueryItem] { order.sorted(items.values) }
}
