import Foundation
import UbiqControlAPI

/// Records and import notices for people: a table with a column per attribute, one line
/// per import. Scripts use `--json`.
enum RecordDisplay {
    static func table(_ records: [RecordEntry]) -> String {
        let names = Set(records.flatMap(\.attributes.keys)).sorted()
        var table = TextTable(header: ["ID"] + names.map { $0.uppercased() })
        for record in records {
            table.append([record.id] + names.map { name in record.attributes[name].map(cell) ?? "" })
        }
        return table.render()
    }

    /// A value in a table: a reference as `@ENTITY/ID`, a text bare, a date to the minute,
    /// data by its size, anything else as compact JSON.
    static func cell(_ value: JSONValue) -> String {
        if let target = value["$ref"], let entity = target["entity"]?.stringValue, let id = target["id"]?.stringValue {
            return "@\(entity)/\(id)"
        }
        if let text = value.stringValue { return text.isEmpty ? "\"\"" : text }
        if let plist = try? PropertyListJSON.value(value) {
            switch plist {
            case .date(let seconds): return DateDisplay.format(Date(timeIntervalSince1970: seconds))
            case .data(let bytes): return ByteCount.format(Int64(bytes.count))
            default: break
            }
        }
        return value.serialized()
    }

    /// `todos: inserted Task/t-1; deleted Task/t-2`, then a line for each write that lost.
    static func describe(_ notice: RecordsDidImportNotice) -> String {
        let parts = [("inserted", notice.inserted), ("updated", notice.updated), ("deleted", notice.deleted)]
            .filter { !$0.1.isEmpty }
            .map { "\($0.0) " + $0.1.map { "\($0.entity)/\($0.id)" }.joined(separator: " ") }
        var lines = ["\(notice.store): " + (parts.isEmpty ? "nothing changed" : parts.joined(separator: "; "))]
        for conflict in notice.conflicts {
            let what = conflict.kind == "deleted"
                ? "a change lost to a delete"
                : "\(conflict.attribute ?? "?") = \(conflict.lost.map(cell) ?? "(removed)") lost"
            lines.append("  \(conflict.entity)/\(conflict.id): \(what) (\(conflict.lostBy))")
        }
        return lines.joined(separator: "\n")
    }
}
