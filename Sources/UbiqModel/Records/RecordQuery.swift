/// A condition on a record's attributes, as `records.fetch` takes it: an attribute equal
/// to, unequal to, or ordered against a value; a text containing a text (or an array holding
/// a value); all or any of other conditions.
public indirect enum RecordPredicate: Hashable, Sendable {
    public enum Comparison: String, Hashable, Sendable, CaseIterable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    case compare(RecordName, Comparison, RecordValue)
    case contains(RecordName, RecordValue)
    case all([RecordPredicate])
    case any([RecordPredicate])

    /// Whether a record with `values` matches. A missing attribute is unequal to everything
    /// and ordered against nothing; values of different types are never ordered.
    public func matches(_ values: [RecordName: RecordValue]) -> Bool {
        switch self {
        case .compare(let name, let comparison, let wanted):
            guard let value = values[name] else { return comparison == .notEqual }
            switch comparison {
            case .equal: return RecordValueOrder.equal(value, wanted)
            case .notEqual: return !RecordValueOrder.equal(value, wanted)
            case .less: return RecordValueOrder.compare(value, wanted) == .some(.orderedAscending)
            case .lessOrEqual: return RecordValueOrder.compare(value, wanted).map { $0 != .orderedDescending } ?? false
            case .greater: return RecordValueOrder.compare(value, wanted) == .some(.orderedDescending)
            case .greaterOrEqual: return RecordValueOrder.compare(value, wanted).map { $0 != .orderedAscending } ?? false
            }
        case .contains(let name, let wanted):
            switch (values[name], wanted) {
            case (.value(.string(let text))?, .value(.string(let part))): return part.isEmpty || text.contains(part)
            case (.value(.array(let elements))?, .value(let element)): return elements.contains(element)
            default: return false
            }
        case .all(let predicates): return predicates.allSatisfy { $0.matches(values) }
        case .any(let predicates): return predicates.contains { $0.matches(values) }
        }
    }

    /// How deep conditions nest, and how many there are: a client's query is refused beyond
    /// a bound.
    public var size: (depth: Int, count: Int) {
        switch self {
        case .compare, .contains: return (1, 1)
        case .all(let predicates), .any(let predicates):
            let sizes = predicates.map(\.size)
            return (1 + (sizes.map(\.depth).max() ?? 0), 1 + sizes.reduce(0) { $0 + $1.count })
        }
    }
}

/// A fetch: the live records of one entity that match, ordered by some attributes (then by
/// ID, so the order is the same on every device), at most `limit` of them.
public struct RecordQuery: Hashable, Sendable {
    public struct Sort: Hashable, Sendable {
        public var attribute: RecordName
        public var ascending: Bool

        public init(_ attribute: RecordName, ascending: Bool = true) {
            self.attribute = attribute
            self.ascending = ascending
        }
    }

    public var entity: RecordName
    public var predicate: RecordPredicate?
    public var sort: [Sort]
    public var limit: Int?

    public init(entity: RecordName, predicate: RecordPredicate? = nil, sort: [Sort] = [], limit: Int? = nil) {
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
    }

    /// Runs the query over `records` (all of the entity, alive).
    public func run(_ records: [(key: RecordKey, values: [RecordName: RecordValue])]) -> [(key: RecordKey, values: [RecordName: RecordValue])] {
        var matching = records.filter { $0.key.entity == entity && (predicate?.matches($0.values) ?? true) }
        matching.sort { a, b in
            for order in sort {
                // A record without the attribute, or with one of another type, sorts last.
                switch (a.values[order.attribute], b.values[order.attribute]) {
                case (nil, nil): continue
                case (nil, _): return false
                case (_, nil): return true
                case (let x?, let y?):
                    switch RecordValueOrder.compare(x, y) {
                    case .orderedAscending?: return order.ascending
                    case .orderedDescending?: return !order.ascending
                    case .orderedSame?: continue
                    case nil:
                        let (first, second) = (RecordValueOrder.typeRank(x), RecordValueOrder.typeRank(y))
                        if first != second { return first < second }
                        continue
                    }
                }
            }
            return a.key.id < b.key.id
        }
        if let limit { matching = Array(matching.prefix(max(0, limit))) }
        return matching
    }
}

/// How attribute values compare: numbers with numbers (integers and doubles together),
/// texts by their Unicode scalars, dates, bools, references by key; nothing else.
enum RecordValueOrder {
    enum Order { case orderedAscending, orderedSame, orderedDescending }

    static func equal(_ a: RecordValue, _ b: RecordValue) -> Bool {
        compare(a, b) == .orderedSame || a == b
    }

    static func compare(_ a: RecordValue, _ b: RecordValue) -> Order? {
        switch (a, b) {
        case (.value(.integer(let x)), .value(.integer(let y))): return order(x, y)
        case (.value(.integer(let x)), .value(.double(let y))): return order(Double(x), y)
        case (.value(.double(let x)), .value(.integer(let y))): return order(x, Double(y))
        case (.value(.double(let x)), .value(.double(let y))): return x.isNaN || y.isNaN ? nil : order(x, y)
        case (.value(.string(let x)), .value(.string(let y))): return x.unicodeScalars.elementsEqual(y.unicodeScalars) ? .orderedSame
            : (x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? .orderedAscending : .orderedDescending)
        case (.value(.date(let x)), .value(.date(let y))): return order(x, y)
        case (.value(.bool(let x)), .value(.bool(let y))): return order(x ? 1 : 0, y ? 1 : 0)
        case (.reference(let x), .reference(let y)): return order(x, y)
        default: return nil
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> Order {
        a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
    }

    /// Where values of different types sort among each other.
    static func typeRank(_ value: RecordValue) -> Int {
        switch value {
        case .value(.bool): 0
        case .value(.integer), .value(.double): 1
        case .value(.string): 2
        case .value(.date): 3
        case .value(.data): 4
        case .value(.array): 5
        case .value(.dictionary): 6
        case .reference: 7
        }
    }
}
