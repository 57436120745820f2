/// Finds the line of a key in TOML source text, because TOMLKit's tables do not keep source
/// positions. Best effort: it understands `[table]`, `[[array]]`, `key = value` and
/// multi-line arrays, which is all an error message needs.
///
/// Keys are named `agent.listen`, `container#2.path` (the second `[[container]]`), or
/// `agent` for a table header.
struct TOMLLineLocator: Sendable {
    private var lines: [String: Int] = [:]

    init(_ text: String) {
        var section = ""
        var arrayCounts: [String: Int] = [:]
        var openBrackets = 0
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let (content, balance) = Self.scan(rawLine)
            if openBrackets > 0 {
                openBrackets = max(0, openBrackets + balance)
                continue
            }
            let line = content.trimmingWhitespace()
            if line.hasPrefix("[[") {
                let name = Self.key(line.dropFirst(2).prefix { $0 != "]" })
                arrayCounts[name, default: 0] += 1
                section = "\(name)#\(arrayCounts[name]!)"
                record(section, index + 1)
            } else if line.hasPrefix("[") {
                section = Self.key(line.dropFirst().prefix { $0 != "]" })
                record(section, index + 1)
            } else if let equals = line.firstIndex(of: "=") {
                let key = Self.key(line[..<equals])
                record(section.isEmpty ? key : section + "." + key, index + 1)
                openBrackets = max(0, Self.scan(line[line.index(after: equals)...]).balance)
            }
        }
    }

    /// The line of `key`, else of the nearest enclosing key or table that has one.
    func line(of key: String) -> Int? {
        var key = Substring(key)
        while true {
            if let line = lines[String(key)] { return line }
            guard let dot = key.lastIndex(of: ".") else { return nil }
            key = key[..<dot]
        }
    }

    private mutating func record(_ key: String, _ line: Int) {
        if lines[key] == nil { lines[key] = line }
    }

    /// `"agent" . listen` → `agent.listen`.
    private static func key(_ text: Substring) -> String {
        text.split(separator: ".")
            .map { $0.trimmingWhitespace().trimmingCharacters(in: "\"'") }
            .joined(separator: ".")
    }

    /// The line without its comment, and how many `[`/`{` it leaves open outside strings.
    private static func scan(_ line: Substring) -> (content: Substring, balance: Int) {
        var balance = 0
        var quote: Character?
        var escaped = false
        for index in line.indices {
            let c = line[index]
            if let open = quote {
                if escaped { escaped = false } else if c == "\\" && open == "\"" { escaped = true } else if c == open { quote = nil }
                continue
            }
            switch c {
            case "\"", "'": quote = c
            case "#": return (line[..<index], balance)
            case "[", "{": balance += 1
            case "]", "}": balance -= 1
            default: break
            }
        }
        return (line, balance)
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }

    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
