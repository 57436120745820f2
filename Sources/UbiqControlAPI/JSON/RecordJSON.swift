import UbiqModel

/// Record stores' values, changes and conditions in the control protocol's JSON: values as
/// property-list JSON, a reference as `{"$ref": {"entity": E, "id": I}}`.
public enum RecordJSON {
    /// No client condition nests deeper or holds more parts.
    public static let maxPredicateDepth = 16
    public static let maxPredicateParts = 256

    public static func json(_ value: RecordValue) -> JSONValue {
        switch value {
        case .value(let value): PropertyListJSON.json(value)
        case .reference(let key): ["$ref": ["entity": .string(key.entity.rawValue), "id": .string(key.id.rawValue)]]
        }
    }

    public static func value(_ json: JSONValue, path: String) throws(RPCError) -> RecordValue {
        if case .object(let members) = json, members.count == 1, let target = members["$ref"] {
            guard case .object(let parts) = target, parts.count == 2, let entity = parts["entity"]?.stringValue, let id = parts["id"]?.stringValue else {
                throw .invalidParams("\(path).$ref is not {\"entity\": ..., \"id\": ...}")
            }
            return .reference(RecordKey(entity: try name(entity, path: "\(path).$ref.entity"), id: try recordID(id, path: "\(path).$ref.id")))
        }
        return .value(try PropertyListJSON.value(json, path: path))
    }

    public static func change(_ params: RecordChangeParams, at index: Int) throws(RPCError) -> RecordChange {
        let path = "changes[\(index)]"
        let key = RecordKey(entity: try name(params.entity, path: "\(path).entity"), id: try recordID(params.id, path: "\(path).id"))
        var attributes: [RecordName: RecordValue?] = [:]
        for (raw, json) in params.attributes ?? [:] {
            let attribute = try name(raw, path: "\(path).attributes")
            attributes[attribute] = json == .null ? .some(nil) : .some(try value(json, path: "\(path).attributes.\(raw)"))
        }
        switch params.op {
        case "insert":
            guard attributes.values.allSatisfy({ $0 != nil }) else { throw .invalidParams("\(path): an insert sets attributes; null removes one only in an update") }
            return .insert(key, attributes: attributes.compactMapValues { $0 })
        case "update":
            return .update(key, attributes: attributes)
        case "delete":
            guard attributes.isEmpty else { throw .invalidParams("\(path): a delete takes no attributes") }
            return .delete(key)
        default:
            throw .invalidParams("\(path).op is '\(params.op)'; use insert, update or delete")
        }
    }

    /// The params a client sends for `change`.
    public static func params(_ change: RecordChange) -> RecordChangeParams {
        let key = change.key
        switch change {
        case .insert(_, let attributes):
            return RecordChangeParams(op: "insert", entity: key.entity.rawValue, id: key.id.rawValue,
                                      attributes: Dictionary(uniqueKeysWithValues: attributes.map { ($0.key.rawValue, json($0.value)) }))
        case .update(_, let attributes):
            return RecordChangeParams(op: "update", entity: key.entity.rawValue, id: key.id.rawValue,
                                      attributes: Dictionary(uniqueKeysWithValues: attributes.map { ($0.key.rawValue, $0.value.map(json) ?? .null) }))
        case .delete:
            return RecordChangeParams(op: "delete", entity: key.entity.rawValue, id: key.id.rawValue)
        }
    }

    /// The `where` a client sends for `predicate`.
    public static func json(_ predicate: RecordPredicate) -> JSONValue {
        switch predicate {
        case .compare(let name, let comparison, let value):
            ["attribute": .string(name.rawValue), "op": .string(comparison.rawValue), "value": json(value)]
        case .contains(let name, let value): ["attribute": .string(name.rawValue), "contains": json(value)]
        case .all(let parts): ["all": .array(parts.map(json))]
        case .any(let parts): ["any": .array(parts.map(json))]
        }
    }

    public static func predicate(_ json: JSONValue, path: String = "where") throws(RPCError) -> RecordPredicate {
        let parsed = try parse(json, path: path)
        let size = parsed.size
        guard size.depth <= maxPredicateDepth, size.count <= maxPredicateParts else {
            throw .invalidParams("\(path) nests deeper than \(maxPredicateDepth) or has more than \(maxPredicateParts) parts")
        }
        return parsed
    }

    private static func parse(_ json: JSONValue, path: String) throws(RPCError) -> RecordPredicate {
        guard case .object(let members) = json else { throw .invalidParams("\(path) is not an object") }
        if members.count == 1, let parts = members["all"] ?? members["any"] {
            guard case .array(let list) = parts else { throw .invalidParams("\(path) holds no array of conditions") }
            var predicates: [RecordPredicate] = []
            for (index, part) in list.enumerated() { predicates.append(try parse(part, path: "\(path)[\(index)]")) }
            return members["all"] != nil ? .all(predicates) : .any(predicates)
        }
        guard let raw = members["attribute"]?.stringValue else { throw .invalidParams("\(path).attribute is missing") }
        let attribute = try name(raw, path: "\(path).attribute")
        if members.count == 2, let wanted = members["contains"] {
            return .contains(attribute, try value(wanted, path: "\(path).contains"))
        }
        guard members.count == 3, let op = members["op"]?.stringValue, let wanted = members["value"] else {
            throw .invalidParams("\(path) is neither {attribute, op, value}, {attribute, contains}, {all} nor {any}")
        }
        guard let comparison = RecordPredicate.Comparison(rawValue: op) else {
            throw .invalidParams("\(path).op is '\(op)'; use one of \(RecordPredicate.Comparison.allCases.map(\.rawValue).joined(separator: " "))")
        }
        return .compare(attribute, comparison, try value(wanted, path: "\(path).value"))
    }

    public static func name(_ raw: String, path: String) throws(RPCError) -> RecordName {
        do { return try RecordName(raw) } catch { throw RPCError(.invalidRecord, "\(path): \(error.reason)") }
    }

    public static func recordID(_ raw: String, path: String) throws(RPCError) -> RecordID {
        do { return try RecordID(raw) } catch { throw RPCError(.invalidRecord, "\(path): \(error.reason)") }
    }

    public static func store(_ raw: String) throws(RPCError) -> RecordStoreName {
        do { return try RecordStoreName(raw) } catch { throw RPCError(.invalidRecord, "store: \(error.reason)") }
    }

    public static func key(_ key: RecordKey) -> RecordKeyJSON { RecordKeyJSON(entity: key.entity.rawValue, id: key.id.rawValue) }

    public static func notice(_ summary: RecordImportSummary, container: ContainerID, store: RecordStoreName) -> RecordsDidImportNotice {
        RecordsDidImportNotice(
            container: container, store: store.rawValue, inserted: summary.inserted.map(key), updated: summary.updated.map(key),
            deleted: summary.deleted.map(key), conflicts: summary.conflicts.map {
                .init(entity: $0.key.entity.rawValue, id: $0.key.id.rawValue, kind: $0.kind.rawValue, attribute: $0.attribute?.rawValue,
                      lost: $0.lost.map(json), lostBy: "\($0.lostBy)")
            })
    }
}
