import Testing
import UbiqModel

/// `records.fetch`'s conditions and order: comparisons across integers and doubles, texts
/// that contain, arrays that hold, all and any; sorted by attributes then ID, then cut.
struct RecordQueryTests {
    static func key(_ id: String) -> RecordKey { RecordKey(entity: try! RecordName("Task"), id: try! RecordID(id)) }
    static func name(_ raw: String) -> RecordName { try! RecordName(raw) }
    static let records: [(key: RecordKey, values: [RecordName: RecordValue])] = [
        (key("a"), [name("title"): .value(.string("Buy milk")), name("rank"): .value(.integer(3)), name("tags"): .value(.array([.string("shop")]))]),
        (key("b"), [name("title"): .value(.string("Call Bob")), name("rank"): .value(.double(1.5))]),
        (key("c"), [name("title"): .value(.string("Buy bread")), name("rank"): .value(.integer(3)), name("done"): .value(.bool(true))]),
        (key("d"), [name("title"): .value(.string("Walk"))]),
    ]

    static func ids(_ query: RecordQuery) -> [String] { query.run(records).map(\.key.id.rawValue) }

    @Test func conditionsMatchAsDocumented() {
        let task = Self.name("Task")
        #expect(Self.ids(RecordQuery(entity: task, predicate: .compare(Self.name("rank"), .equal, .value(.double(3))))) == ["a", "c"])
        #expect(Self.ids(RecordQuery(entity: task, predicate: .compare(Self.name("rank"), .less, .value(.integer(2))))) == ["b"])
        #expect(Self.ids(RecordQuery(entity: task, predicate: .compare(Self.name("rank"), .notEqual, .value(.integer(3))))) == ["b", "d"])
        #expect(Self.ids(RecordQuery(entity: task, predicate: .compare(Self.name("title"), .greaterOrEqual, .value(.string("C"))))) == ["b", "d"])
        #expect(Self.ids(RecordQuery(entity: task, predicate: .compare(Self.name("title"), .greater, .value(.integer(1))))).isEmpty)
        #expect(Self.ids(RecordQuery(entity: task, predicate: .contains(Self.name("title"), .value(.string("Buy"))))) == ["a", "c"])
        #expect(Self.ids(RecordQuery(entity: task, predicate: .contains(Self.name("tags"), .value(.string("shop"))))) == ["a"])
        let both = RecordPredicate.all([.contains(Self.name("title"), .value(.string("Buy"))), .compare(Self.name("done"), .equal, .value(.bool(true)))])
        #expect(Self.ids(RecordQuery(entity: task, predicate: both)) == ["c"])
        let either = RecordPredicate.any([.compare(Self.name("title"), .equal, .value(.string("Walk"))), both])
        #expect(Self.ids(RecordQuery(entity: task, predicate: either)) == ["c", "d"])
        #expect(either.size == (3, 5))
        #expect(Self.ids(RecordQuery(entity: Self.name("List"))).isEmpty)
    }

    @Test func resultsAreSortedThenCut() {
        let task = Self.name("Task")
        #expect(Self.ids(RecordQuery(entity: task, sort: [.init(Self.name("rank"))])) == ["b", "a", "c", "d"])
        #expect(Self.ids(RecordQuery(entity: task, sort: [.init(Self.name("rank"), ascending: false), .init(Self.name("title"))])) == ["c", "a", "b", "d"])
        #expect(Self.ids(RecordQuery(entity: task, sort: [.init(Self.name("rank"), ascending: false)], limit: 2)) == ["a", "c"])
        #expect(Self.ids(RecordQuery(entity: task, limit: 0)).isEmpty)
    }
}
