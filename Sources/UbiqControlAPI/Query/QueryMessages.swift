import UbiqModel

/// The params of `query.start`: what to search and how to sort it. Only `container` is
/// required on the wire.
public struct QueryStartParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    /// Default `documents`.
    public var scope: QueryScope
    /// A ``NameGlob`` pattern for the item's name; every name when nil.
    public var glob: String?
    /// Match the glob without regard to case (default false).
    public var ignoreCase: Bool
    /// Default `name`.
    public var sort: QuerySortKey
    /// Default false.
    public var descending: Bool

    public init(
        container: ContainerID, scope: QueryScope = .documents, glob: String? = nil, ignoreCase: Bool = false,
        sort: QuerySortKey = .name, descending: Bool = false
    ) {
        self.container = container
        self.scope = scope
        self.glob = glob
        self.ignoreCase = ignoreCase
        self.sort = sort
        self.descending = descending
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        container = try values.decode(ContainerID.self, forKey: .container)
        scope = try values.decodeIfPresent(QueryScope.self, forKey: .scope) ?? .documents
        glob = try values.decodeIfPresent(String.self, forKey: .glob)
        ignoreCase = try values.decodeIfPresent(Bool.self, forKey: .ignoreCase) ?? false
        sort = try values.decodeIfPresent(QuerySortKey.self, forKey: .sort) ?? .name
        descending = try values.decodeIfPresent(Bool.self, forKey: .descending) ?? false
    }

    public var order: QueryOrder { QueryOrder(sort, descending: descending) }
}

/// The result of `query.start`: the query's id and what the gathering phase found, sorted.
public struct QueryStartResult: Hashable, Sendable, Codable {
    public var query: String
    public var items: [QueryItem]

    public init(query: String, items: [QueryItem]) {
        self.query = query
        self.items = items
    }
}

/// The params of `query.stop`, and its result.
public struct QueryStopParams: Hashable, Sendable, Codable {
    public var query: String

    public init(query: String) { self.query = query }
}

/// The params of the `query.update` notification: how a query's results changed since the
/// last one (or since the gathering phase). `added` and `changed` are in the query's order,
/// `removed` holds paths, sorted. A renamed item is removed under its old path and added
/// under its new one; an item that stops matching (renamed out of the scope, say) is removed.
public struct QueryUpdateNotice: Hashable, Sendable, Codable {
    public var query: String
    public var added: [QueryItem]
    public var changed: [QueryItem]
    public var removed: [String]

    public init(query: String, added: [QueryItem] = [], changed: [QueryItem] = [], removed: [String] = []) {
        self.query = query
        self.added = added
        self.changed = changed
        self.removed = removed
    }

    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }
}

/// The params of `item.status`.
public struct ItemStatusParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String

    public init(container: ContainerID, path: String) {
        self.container = container
        self.path = path
    }
}
