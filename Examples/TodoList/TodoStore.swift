import Foundation
import UbiqClient

/// The to-do list over the `todos` record store: `List` records (a title; the ID is the
/// list's name) and `Task` records that refer to their list. Every device of the account
/// sees the same tasks once the agents have synced.
struct TodoStore: Sendable {
    static let name = "todos"
    let records: RecordStore

    init(client: UbiqAgentClient, container: ContainerID) {
        records = RecordStore(client: client, container: container, name: Self.name)
    }

    /// Adds an open task to `list`, making the list in the same transaction if it is new.
    func add(_ title: String, to list: String) async throws -> TodoTask {
        let listKey = try Self.listKey(list)
        let key = RecordKey(entity: TodoTask.entity, id: try RecordID(String(UUID().uuidString.prefix(8)).lowercased()))
        let attributes = TodoTask.attributes(title: title, list: listKey, created: Date())
        var changes: [RecordChange] = []
        if try await records.fetch(TodoTask.listEntity.rawValue).allSatisfy({ $0.key != listKey }) {
            changes.append(.insert(listKey, attributes: [TodoTask.Attribute.title: .value(.string(list))]))
        }
        changes.append(.insert(key, attributes: attributes))
        try await records.save(changes)
        return TodoTask(key: key, values: attributes)
    }

    func markDone(_ id: String) async throws -> TodoTask {
        var task = try await find(id)
        try await records.save([.update(try key(task.id), attributes: [TodoTask.Attribute.done: .value(.bool(true))])])
        task.done = true
        return task
    }

    func remove(_ id: String) async throws -> TodoTask {
        let task = try await find(id)
        try await records.save([.delete(try key(task.id))])
        return task
    }

    /// The tasks, open ones first, each group oldest first; only those of `list` if given.
    func tasks(in list: String? = nil) async throws -> [TodoTask] {
        var predicate: RecordPredicate?
        if let list { predicate = .compare(TodoTask.Attribute.list, .equal, .reference(try Self.listKey(list))) }
        return try await records.fetch(TodoTask.entity.rawValue, where: predicate,
                                       sort: [.init(TodoTask.Attribute.done), .init(TodoTask.Attribute.created)])
            .map { TodoTask(key: $0.key, values: $0.values) }
    }

    /// The task with this ID, or the only one whose ID starts with it.
    private func find(_ id: String) async throws -> TodoTask {
        let all = try await tasks()
        if let exact = all.first(where: { $0.id == id }) { return exact }
        let matches = all.filter { $0.id.hasPrefix(id) }
        guard matches.count <= 1 else { throw TodoError.ambiguousTask(id, matches: matches.map(\.id)) }
        guard let task = matches.first else { throw TodoError.noSuchTask(id) }
        return task
    }

    /// A list's record: its ID is its name.
    private static func listKey(_ name: String) throws(TodoError) -> RecordKey {
        do { return RecordKey(entity: TodoTask.listEntity, id: try RecordID(name)) } catch {
            throw .badName(name, reason: error.reason)
        }
    }

    private func key(_ id: String) throws -> RecordKey {
        RecordKey(entity: TodoTask.entity, id: try RecordID(id))
    }
}
