import ArgumentParser
import UbiqControlAPI

/// What `ubiq records save` was given, turned into the changes of one `records.save`
/// transaction: the `changes` array as JSON, or one change in words
/// (`insert Task t-1 title=milk list=@List/l-1`).
enum RecordChangeInput {
    static let operations: Set<String> = ["insert", "update", "delete"]

    /// The changes from JSON text: the `changes` array of `records.save`, or one change object.
    static func changes(json text: String, source: String) throws(ValidationError) -> [RecordChangeParams] {
        let json: JSONValue
        do { json = try JSONValue(parsing: text) } catch {
            throw ValidationError("\(source) is not JSON (\(error)); give the changes as [{\"op\": \"insert\", \"entity\": ..., \"id\": ..., "
                + "\"attributes\": {...}}, ...] or one change in words: insert|update|delete ENTITY ID [NAME=VALUE ...]")
        }
        let list: JSONValue
        switch json {
        case .array: list = json
        case .object: list = [json]
        default: throw ValidationError("\(source) is not a list of changes but JSON of type \(json.typeName)")
        }
        do {
            return try RPCParams.decode([RecordChangeParams].self, from: list)
        } catch {
            // The decoder names the field from the list down: "'[0].op' is missing".
            throw ValidationError("\(source): changes: \(error.message)")
        }
    }

    /// One change from words: `OP ENTITY ID [NAME=VALUE ...]`.
    static func change(words: [String]) throws(ValidationError) -> RecordChangeParams {
        guard words.count >= 3, let op = words.first, operations.contains(op) else {
            throw ValidationError("give one change as insert|update|delete ENTITY ID [NAME=VALUE ...]")
        }
        let (entity, id) = (words[1], words[2])
        let assignments = words.dropFirst(3)
        if op == "delete" {
            guard assignments.isEmpty else { throw ValidationError("a delete takes no NAME=VALUE: delete \(entity) \(id)") }
            return RecordChangeParams(op: op, entity: entity, id: id)
        }
        var attributes: [String: JSONValue] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw ValidationError("'\(assignment)' is not NAME=VALUE")
            }
            let name = String(assignment[..<equals])
            guard attributes[name] == nil else { throw ValidationError("\(name) is given twice") }
            attributes[name] = try value(String(assignment[assignment.index(after: equals)...]), of: name, in: op)
        }
        return RecordChangeParams(op: op, entity: entity, id: id, attributes: attributes)
    }

    /// A value as `ubiq kv set` reads it (JSON, else the text as a string), `@ENTITY/ID` for a
    /// reference, and nothing at all (`note=`) to remove the attribute in an update.
    static func value(_ text: String, of name: String, in op: String) throws(ValidationError) -> JSONValue {
        if text.isEmpty {
            guard op == "update" else {
                throw ValidationError("\(name)= has no value: that removes an attribute, in an update only; write \(name)='\"\"' for an empty text")
            }
            return .null
        }
        if text.hasPrefix("@") {
            let target = text.dropFirst()
            guard let slash = target.firstIndex(of: "/"), slash != target.startIndex, target.index(after: slash) != target.endIndex else {
                throw ValidationError("\(name)=\(text) is not a reference: write @ENTITY/ID (\(name)=@List/l-1), "
                    + "or JSON for a text that starts with @ (\(name)='\"\(text)\"')")
            }
            return ["$ref": ["entity": .string(String(target[..<slash])), "id": .string(String(target[target.index(after: slash)...]))]]
        }
        return KeyValueCommand.parse(text)
    }
}
