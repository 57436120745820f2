import Foundation
import UbiqModel

/// One change of a `records.save` transaction: `op` is `insert`, `update` or `delete`;
/// `attributes` maps names to values in property-list JSON, or `{"$ref": {"entity", "id"}}`
/// for a reference, or (in an update) `null` to remove the attribute.
public struct RecordChangeParams: Hashable, Sendable, Codable {
    public var op: String
    public var entity: String
    public var id: String
    public var attributes: [String: JSONValue]?

    public init(op: String, entity: String, id: String, attributes: [String: JSONValue]? = nil) {
        self.op = op
        self.entity = entity
        self.id = id
        self.attributes = attributes
    }
}

/// The params of `records.save`: one transaction, applied all or nothing.
public struct RecordsSaveParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var store: String
    public var changes: [RecordChangeParams]

    public init(container: ContainerID, store: String, changes: [RecordChangeParams]) {
        self.container = container
        self.store = store
        self.changes = changes
    }
}

/// The result of `records.save`: the transaction's name (`DEVICE:COUNTER`) and its log.
public struct RecordsSaveResult: Hashable, Sendable, Codable {
    public var transaction: String
    public var log: String

    public init(transaction: String, log: String) {
        self.transaction = transaction
        self.log = log
    }
}

/// One order of a fetch: by `attribute`, ascending unless `descending`.
public struct RecordSortParams: Hashable, Sendable, Codable {
    public var attribute: String
    public var descending: Bool?

    public init(attribute: String, descending: Bool? = nil) {
        self.attribute = attribute
        self.descending = descending
    }
}

/// The params of `records.fetch`. `where` is a condition: `{"attribute", "op", "value"}`
/// with `op` one of `==`, `!=`, `<`, `<=`, `>`, `>=`; `{"attribute", "contains"}` (text in
/// a text, or a value in an array); `{"all": [...]}` or `{"any": [...]}`.
public struct RecordsFetchParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var store: String
    public var entity: String
    public var `where`: JSONValue?
    public var sort: [RecordSortParams]?
    public var limit: Int?

    public init(container: ContainerID, store: String, entity: String, where condition: JSONValue? = nil,
                sort: [RecordSortParams]? = nil, limit: Int? = nil) {
        self.container = container
        self.store = store
        self.entity = entity
        self.where = condition
        self.sort = sort
        self.limit = limit
    }
}

/// One record as `records.fetch` returns it.
public struct RecordEntry: Hashable, Sendable, Codable {
    public var entity: String
    public var id: String
    public var attributes: [String: JSONValue]

    public init(entity: String, id: String, attributes: [String: JSONValue]) {
        self.entity = entity
        self.id = id
        self.attributes = attributes
    }
}

public struct RecordsFetchResult: Hashable, Sendable, Codable {
    public var records: [RecordEntry]

    public init(records: [RecordEntry]) { self.records = records }
}

/// The params of `records.subscribe`, and its result.
public struct RecordsStoreParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var store: String

    public init(container: ContainerID, store: String) {
        self.container = container
        self.store = store
    }
}

/// A record by entity and ID, in notices.
public struct RecordKeyJSON: Hashable, Sendable, Codable {
    public var entity: String
    public var id: String

    public init(entity: String, id: String) {
        self.entity = entity
        self.id = id
    }
}

/// `records.didImport`: what importing other devices' transactions did to a store, as
/// iCloud's `NSPersistentStoreDidImportUbiquitousContentChangesNotification`. `conflicts`
/// lists the writes that lost: `kind` `attribute` (a concurrent write of the attribute won;
/// `lost` is the losing value) or `deleted` (a delete the change had not seen won).
public struct RecordsDidImportNotice: Hashable, Sendable, Codable {
    public struct Conflict: Hashable, Sendable, Codable {
        public var entity: String
        public var id: String
        public var kind: String
        public var attribute: String?
        public var lost: JSONValue?
        public var lostBy: String

        public init(entity: String, id: String, kind: String, attribute: String?, lost: JSONValue?, lostBy: String) {
            self.entity = entity
            self.id = id
            self.kind = kind
            self.attribute = attribute
            self.lost = lost
            self.lostBy = lostBy
        }
    }

    public var container: ContainerID
    public var store: String
    public var inserted: [RecordKeyJSON]
    public var updated: [RecordKeyJSON]
    public var deleted: [RecordKeyJSON]
    public var conflicts: [Conflict]

    public init(container: ContainerID, store: String, inserted: [RecordKeyJSON], updated: [RecordKeyJSON], deleted: [RecordKeyJSON],
                conflicts: [Conflict]) {
        self.container = container
        self.store = store
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.conflicts = conflicts
    }
}

/// The result of `records.deleteStore`: how many change logs went from the container (every
/// device's; peers remove them and their local store as the deletion reaches them).
public struct RecordsDeleteStoreResult: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var store: String
    public var logs: Int

    public init(container: ContainerID, store: String, logs: Int) {
        self.container = container
        self.store = store
        self.logs = logs
    }
}
