import Foundation
import UbiqClient

/// One task of the list as the example shows it, read from its `Task` record: title, done,
/// when it was created and the `List` record it belongs to.
struct TodoTask: Sendable {
    var id: String
    var title: String
    var done: Bool
    var created: Date
    var list: String

    enum Attribute {
        static let title = try! RecordName("title")
        static let done = try! RecordName("done")
        static let created = try! RecordName("created")
        static let list = try! RecordName("list")
    }

    static let entity = try! RecordName("Task")
    static let listEntity = try! RecordName("List")

    /// A record another program wrote may lack attributes; the task shows what it has.
    init(key: RecordKey, values: [RecordName: RecordValue]) {
        id = key.id.rawValue
        if case .value(.string(let text))? = values[Attribute.title] { title = text } else { title = "" }
        if case .value(.bool(let flag))? = values[Attribute.done] { done = flag } else { done = false }
        if case .value(.date(let seconds))? = values[Attribute.created] {
            created = Date(timeIntervalSince1970: seconds)
        } else {
            created = .distantPast
        }
        if case .reference(let target)? = values[Attribute.list] { list = target.id.rawValue } else { list = "" }
    }

    /// The attributes of a new task's record.
    static func attributes(title: String, list: RecordKey, created: Date) -> [RecordName: RecordValue] {
        [Attribute.title: .value(.string(title)), Attribute.done: .value(.bool(false)),
         Attribute.created: .value(.date(secondsSince1970: created.timeIntervalSince1970)), Attribute.list: .reference(list)]
    }

    /// `[x] 1a2b3c4d  milk  (shopping)`
    var line: String {
        "[\(done ? "x" : " ")] \(id)  \(title)" + (list.isEmpty ? "" : "  (\(list))")
    }
}
