/// One line of an ignore list, with gitignore's meaning (the rules of gitignore(5), "PATTERN
/// FORMAT", https://git-scm.com/docs/gitignore): `*` and `?` within a name, `[...]` classes
/// with ranges, `!`/`^` and `[:alpha:]`-style names, `**/` for any folders, a leading or
/// middle `/` anchoring the pattern at the container's root, a trailing `/` for folders only,
/// `!` re-including, `\` escaping, `#` comments and unescaped trailing spaces dropped.
public struct IgnorePattern: Sendable, Hashable {
    /// The line as written, for status and error messages.
    public let text: String
    /// Where the line is: `.ubiqignore`, the config, or the built-in defaults.
    public let source: IgnoreSource
    /// Its line number in `source`, from 1.
    public let line: Int
    /// A `!` pattern: what it matches is synced again.
    public let negated: Bool
    /// A trailing `/`: matches folders only.
    let directoryOnly: Bool
    /// A `/` before the end: matched against the whole path, not only the last name.
    let anchored: Bool
    let tokens: [GlobToken]
    /// The literal characters the pattern starts and ends with (before its first and after
    /// its last wildcard): a subject without them cannot match, which a scan of a million
    /// names against `*.swp` learns without running the matcher.
    let literalStart: [Unicode.Scalar]
    let literalEnd: [Unicode.Scalar]

    /// The pattern a line holds; nil for a blank line or a comment. Throws, with the reason,
    /// for a line that is no pattern (a class not closed, a `\` at the end), which is then
    /// left out, never taken to match everything.
    public init?(_ text: String, source: IgnoreSource, line: Int) throws(IgnorePatternError) {
        var scalars = Array(text.unicodeScalars)
        if scalars.last == "\r" { scalars.removeLast() }
        // Trailing spaces go unless escaped with a backslash.
        while scalars.last == " " {
            var backslashes = 0
            for scalar in scalars.dropLast().reversed() {
                guard scalar == "\\" else { break }
                backslashes += 1
            }
            if backslashes % 2 == 1 { break }
            scalars.removeLast()
        }
        guard let first = scalars.first, first != "#" else { return nil }
        self.text = text
        self.source = source
        self.line = line
        negated = first == "!"
        if negated { scalars.removeFirst() }
        directoryOnly = scalars.last == "/" && !(scalars.count >= 2 && scalars[scalars.count - 2] == "\\")
        if directoryOnly { scalars.removeLast() }
        guard !scalars.isEmpty else { throw IgnorePatternError(text: text, source: source, line: line, reason: "the pattern is empty") }
        // A slash at the start or in the middle anchors the pattern (a trailing one does not).
        anchored = scalars.contains("/")
        if scalars.first == "/" { scalars.removeFirst() }
        do { tokens = try GlobToken.parse(scalars) } catch {
            throw IgnorePatternError(text: text, source: source, line: line, reason: error.reason)
        }
        literalStart = GlobToken.literals(tokens.prefix { $0.literal != nil })
        literalEnd = tokens.allSatisfy { $0.literal != nil } ? [] : GlobToken.literals(tokens.reversed().prefix { $0.literal != nil }.reversed())
    }

    /// Whether the pattern matches `path` itself (its folders are the caller's business).
    public func matches(_ path: RelativePath, isDirectory: Bool) -> Bool {
        matches(path: Array(path.rawValue.unicodeScalars), name: Array(path.name.unicodeScalars), isDirectory: isDirectory)
    }

    /// As ``matches(_:isDirectory:)``, for a path and its last name already in scalars
    /// (`path` may be empty where no pattern is anchored).
    func matches(path: [Unicode.Scalar], name: [Unicode.Scalar], isDirectory: Bool) -> Bool {
        if directoryOnly && !isDirectory { return false }
        let subject = anchored ? path : name
        guard subject.count >= literalStart.count + literalEnd.count, subject.starts(with: literalStart),
              subject.suffix(literalEnd.count).elementsEqual(literalEnd) else { return false }
        return GlobToken.match(tokens, subject)
    }
}

/// Where an ignore pattern comes from, in the order of precedence, lowest first: a later
/// source's matching line overrides an earlier one's, as in git.
public enum IgnoreSource: String, Sendable, Hashable, Codable {
    /// The built-in list of editors' and desktops' temporary files.
    case defaults
    /// This device's `ignore` list for the container in `ubiqd.toml`.
    case config
    /// `.ubiqignore` at the container's root, synced to every device.
    case file = ".ubiqignore"
}

/// A line that is no pattern, and why; it is left out of the rules.
public struct IgnorePatternError: Error, Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let source: IgnoreSource
    public let line: Int
    public let reason: String

    public var description: String { "\(source.rawValue) line \(line): '\(text)': \(reason); the line is left out" }
}
