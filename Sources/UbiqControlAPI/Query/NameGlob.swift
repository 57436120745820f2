/// A file-name pattern, as in a metadata query's `FSName like 'x*'`: `*` matches any run of
/// characters (none included), `?` exactly one, and `\` makes the next character literal.
/// It matches a whole name, character by character, so canonically equivalent forms of a
/// name (precomposed or decomposed accents) match alike.
///
/// Case counts unless `ignoreCase` is set, as with `LIKE` and `LIKE[c]` in a predicate and
/// `find -name` and `-iname`.
public struct NameGlob: Hashable, Sendable, CustomStringConvertible {
    enum Token: Hashable, Sendable {
        case literal(Character)
        case anyCharacter
        case anyRun
    }

    public let pattern: String
    public let ignoreCase: Bool
    let tokens: [Token]

    public init(_ pattern: String, ignoreCase: Bool = false) throws(NameGlobError) {
        guard !pattern.isEmpty else {
            throw NameGlobError("the name pattern is empty; give one such as '*.txt', or leave it out to match every name")
        }
        self.pattern = pattern
        self.ignoreCase = ignoreCase
        var tokens: [Token] = []
        var escaped = false
        for character in ignoreCase ? pattern.lowercased() : pattern {
            if escaped {
                tokens.append(.literal(character))
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true
            case "*": if tokens.last != .anyRun { tokens.append(.anyRun) }
            case "?": tokens.append(.anyCharacter)
            default: tokens.append(.literal(character))
            }
        }
        guard !escaped else {
            throw NameGlobError("the name pattern '\(pattern)' ends with a lone '\\'; write '\\\\' for a backslash")
        }
        self.tokens = tokens
    }

    public var description: String { ignoreCase ? "\(pattern) (ignoring case)" : pattern }

    /// Whether `name` matches the whole pattern.
    ///
    /// Greedy matching that backtracks only to the last `*` (Krauss, "Matching Wildcards:
    /// An Algorithm", Dr. Dobb's Journal, 2008): no recursion, and O(name × pattern) at worst.
    public func matches(_ name: String) -> Bool {
        let characters = Array(ignoreCase ? name.lowercased() : name)
        var token = 0, position = 0
        var lastRun: (token: Int, position: Int)?
        while position < characters.count {
            if token < tokens.count {
                switch tokens[token] {
                case .anyRun:
                    lastRun = (token, position)
                    token += 1
                    continue
                case .anyCharacter:
                    token += 1
                    position += 1
                    continue
                case .literal(let literal) where literal == characters[position]:
                    token += 1
                    position += 1
                    continue
                case .literal:
                    break
                }
            }
            guard let run = lastRun else { return false }
            lastRun = (run.token, run.position + 1)
            token = run.token + 1
            position = run.position + 1
        }
        return tokens[token...].allSatisfy { $0 == .anyRun }
    }
}

/// A name pattern that cannot be used; the message says how to write it.
public struct NameGlobError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
