import Foundation

/// What a query sorts its results by.
public enum QuerySortKey: String, Hashable, Sendable, Codable, CaseIterable {
    /// The file name, as a file manager sorts: case aside, digit runs by their value
    /// (`file2` before `file10`).
    case name
    /// The modification time.
    case modified
    case size

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let key = QuerySortKey(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "sort is '\(text)'; use name, modified or size")
        }
        self = key
    }
}

/// The order of a query's results: a key, ties broken by path, and descending the exact
/// reverse of ascending, so the agent and every client order the same items alike.
public struct QueryOrder: Hashable, Sendable {
    public var key: QuerySortKey
    public var descending: Bool

    public init(_ key: QuerySortKey = .name, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }

    public func areInIncreasingOrder(_ a: QueryItem, _ b: QueryItem) -> Bool {
        descending ? Self.ascending(key, b, a) : Self.ascending(key, a, b)
    }

    public func sorted(_ items: some Sequence<QueryItem>) -> [QueryItem] {
        items.sorted(by: areInIncreasingOrder)
    }

    private static func ascending(_ key: QuerySortKey, _ a: QueryItem, _ b: QueryItem) -> Bool {
        switch key {
        case .name:
            switch a.name.compare(b.name, options: [.caseInsensitive, .numeric]) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: break
            }
        case .modified:
            if a.modified != b.modified { return a.modified < b.modified }
        case .size:
            if a.size != b.size { return a.size < b.size }
        }
        return a.path < b.path
    }
}
