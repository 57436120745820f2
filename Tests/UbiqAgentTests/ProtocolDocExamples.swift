import Foundation
import UbiqControlAPI

/// The `socat` examples of docs/control-protocol.md, read as a third-party developer reads
/// them: each `$ echo '<request>' | socat … UNIX-CONNECT:$SOCKET` line with the answer the doc
/// prints under it.
struct ProtocolDocExample: Sendable, CustomStringConvertible {
    /// The doc's line number, for the failure message.
    let line: Int
    let request: String
    /// `SOCK`, `ALPHA` or `BETA`: which agent the doc sent it to.
    let socket: String
    /// The answer as the doc prints it; nil where the doc shows none, or only part of one
    /// (a `# one container of the answer` comment, an elided `…`).
    let answer: JSONValue?
    /// The request's method; "?" for a line that is no request.
    let method: String
    var description: String { "line \(line) (\(method))" }

    /// Every example of the doc, in the order the doc gives them.
    static func all(in text: String) -> [ProtocolDocExample] {
        let lines = text.components(separatedBy: "\n")
        var examples: [ProtocolDocExample] = []
        for (index, line) in lines.enumerated() {
            guard line.hasPrefix("$ echo '"), let end = line.range(of: "' | socat "),
                  let socket = line.range(of: "UNIX-CONNECT:$") else { continue }
            let request = String(line[line.index(line.startIndex, offsetBy: 8)..<end.lowerBound])
            let name = String(line[socket.upperBound...].prefix { $0.isLetter })
            let abridged = line[socket.upperBound...].contains("#")
            var answer: JSONValue?
            if !abridged, index + 1 < lines.count, lines[index + 1].hasPrefix("{"), !lines[index + 1].contains("…") {
                answer = try? JSONValue(parsing: Array(lines[index + 1].utf8))
            }
            let method = (try? JSONValue(parsing: request))?["method"]?.stringValue ?? "?"
            examples.append(ProtocolDocExample(line: index + 1, request: request, socket: name, answer: answer, method: method))
        }
        return examples
    }

    /// The names the doc marks as optional anywhere (`since?`, `url?`): a key of that name may
    /// be in one answer and not in another.
    static func optionalKeys(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "([A-Za-z][A-Za-z0-9]*)\\?")
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } })
    }
}

/// How an agent's answer differs in shape from the doc's: both a result or both an error of
/// the same code; results of the same JSON types, with the same keys at every level but those
/// the doc marks optional; arrays compared by their first elements.
enum AnswerShape {
    static func differences(doc: JSONValue, agent: JSONValue, optional: Set<String>) -> [String] {
        switch (doc["error"], agent["error"]) {
        case (let documented?, let actual?):
            let (a, b) = (documented["code"]?.integerValue, actual["code"]?.integerValue)
            return a == b ? [] : ["error code \(b.map(String.init) ?? "?"), the doc says \(a.map(String.init) ?? "?")"]
        case (let documented?, nil):
            return ["a result, the doc says error \(documented["code"]?.integerValue.map(String.init) ?? "?")"]
        case (nil, let actual?):
            return ["error \(actual["code"]?.integerValue.map(String.init) ?? "?") (\(actual["message"]?.stringValue ?? "")), the doc shows a result"]
        case (nil, nil):
            return compare(doc["result"] ?? .null, agent["result"] ?? .null, at: "result", optional: optional)
        }
    }

    private static func compare(_ doc: JSONValue, _ agent: JSONValue, at path: String, optional: Set<String>) -> [String] {
        switch (doc, agent) {
        case (.object(let d), .object(let a)):
            var found: [String] = []
            // A key-value store's `values` are keyed by the store's own keys: data, not shape
            // (and what has reached the other agent yet).
            let keysAreData = path.hasSuffix(".values")
            for key in Set(d.keys).subtracting(a.keys) where !optional.contains(key) && !keysAreData { found.append("\(path).\(key) is missing") }
            for key in Set(a.keys).subtracting(d.keys) where !optional.contains(key) && !keysAreData { found.append("\(path).\(key) is not in the doc") }
            for key in Set(d.keys).intersection(a.keys).sorted() {
                found += compare(d[key]!, a[key]!, at: "\(path).\(key)", optional: optional)
            }
            return found
        case (.array(let d), .array(let a)):
            guard let first = d.first, let other = a.first else { return [] }
            return compare(first, other, at: "\(path)[0]", optional: optional)
        case (.integer, .integer), (.integer, .double), (.double, .integer), (.double, .double),
             (.string, .string), (.bool, .bool):
            return []
        case (.null, _), (_, .null):
            // A value the doc shows as null may have one here, and the other way round.
            return []
        default:
            return ["\(path) is \(kind(agent)), the doc shows \(kind(doc))"]
        }
    }

    private static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
