import TOMLKit

/// Typed, checked access to one table of the config file: every wrong type or unknown key
/// becomes a `ConfigError` that names the key, the file and, when found, the line.
struct TOMLReader {
    let table: TOMLTable
    let file: String
    let locator: TOMLLineLocator
    /// How the locator names this table: `""`, `agent`, `container#2`.
    let prefix: String
    /// How people name this table: `the top level`, `[agent]`, `[[container]] #2`.
    let section: String

    func origin(of key: String) -> ConfigOrigin {
        .file(file, line: locator.line(of: prefix.isEmpty ? key : prefix + "." + key))
    }

    func rejectUnknownKeys(allowed: [String]) throws(ConfigError) {
        for key in table.keys.sorted() where !allowed.contains(key) {
            let hint = Self.closest(to: key, in: allowed).map { "did you mean '\($0)'? " } ?? ""
            throw origin(of: key).error(
                .unknownKey,
                "unknown key '\(key)' in \(section); \(hint)known keys are \(allowed.joined(separator: ", "))"
            )
        }
    }

    func string(_ key: String) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let string = value.string else { throw wrongType(key, value, expected: "a string") }
        return string
    }

    func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let bool = value.bool else { throw wrongType(key, value, expected: "true or false") }
        return bool
    }

    func int(_ key: String) throws(ConfigError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let int = value.int else { throw wrongType(key, value, expected: "an integer") }
        return int
    }

    func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        let expected = "an array of strings, e.g. [\"a\", \"b\"]"
        guard let array = value.array else { throw wrongType(key, value, expected: expected) }
        var result: [String] = []
        for element in array {
            guard let string = element.string else { throw wrongType(key, element, expected: expected) }
            result.append(string)
        }
        return result
    }

    func table(_ key: String) throws(ConfigError) -> TOMLReader? {
        guard let value = table[key] else { return nil }
        guard let table = value.table else { throw wrongType(key, value, expected: "a table, written [\(key)]") }
        return TOMLReader(table: table, file: file, locator: locator, prefix: key, section: "[\(key)]")
    }

    func tables(_ key: String) throws(ConfigError) -> [TOMLReader]? {
        guard let value = table[key] else { return nil }
        let expected = "an array of tables, each written [[\(key)]]"
        guard let array = value.array else { throw wrongType(key, value, expected: expected) }
        var result: [TOMLReader] = []
        for (index, element) in array.enumerated() {
            guard let table = element.table else { throw wrongType(key, element, expected: expected) }
            result.append(TOMLReader(table: table, file: file, locator: locator, prefix: "\(key)#\(index + 1)", section: "[[\(key)]] #\(index + 1)"))
        }
        return result
    }

    /// Runs a value check and points its error at `key`.
    func checked<T, U>(_ key: String, _ value: T?, _ check: (T) throws(ConfigError) -> U) throws(ConfigError) -> U? {
        guard let value else { return nil }
        do {
            return try check(value)
        } catch {
            throw origin(of: key).error(error.code, "\(key) in \(section): \(error.reason)")
        }
    }

    private func wrongType(_ key: String, _ value: any TOMLValueConvertible, expected: String) -> ConfigError {
        origin(of: key).error(.wrongType, "'\(key)' in \(section) must be \(expected), not \(Self.article(value.type))")
    }

    private static func article(_ type: TOMLType) -> String {
        let name = type.description
        return ("aeiou".contains(name.first ?? "x") ? "an " : "a ") + name
    }

    /// The allowed key within two edits of a typo, if any (Levenshtein distance).
    static func closest(to key: String, in allowed: [String]) -> String? {
        let best = allowed.map { ($0, distance(Array(key), Array($0))) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= 2 else { return nil }
        return best.0
    }

    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for i in a.indices {
            var current = [i + 1]
            for j in b.indices {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
