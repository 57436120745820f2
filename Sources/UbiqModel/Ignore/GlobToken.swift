/// A piece of a glob as gitignore reads it, and the matcher over Unicode scalars (a `?`
/// takes one character, not one byte of it).
enum GlobToken: Sendable, Hashable {
    case literal(Unicode.Scalar)
    /// `?`: one character but `/`.
    case one
    /// `*`: any run of characters without `/`.
    case name
    /// `**` as a whole path piece at the end (`a/**`): anything, `/` included.
    case anything
    /// `**/` at the start or after a `/`: nothing, or any folders followed by `/`.
    case folders
    /// `[...]`: one character (not `/`) in, or with `negated` not in, the set.
    case set(ranges: [ClosedRange<Unicode.Scalar>], classes: [CharacterClass], negated: Bool)

    /// The POSIX classes a bracket expression may name, as `[:alpha:]`; ASCII only, as in git.
    enum CharacterClass: String, Sendable, Hashable, CaseIterable {
        case alnum, alpha, blank, cntrl, digit, graph, lower, print, punct, space, upper, xdigit

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            guard scalar.isASCII else { return false }
            let value = scalar.value
            let isUpper = (65...90).contains(value), isLower = (97...122).contains(value), isDigit = (48...57).contains(value)
            switch self {
            case .alnum: return isUpper || isLower || isDigit
            case .alpha: return isUpper || isLower
            case .blank: return value == 32 || value == 9
            case .cntrl: return value < 32 || value == 127
            case .digit: return isDigit
            case .graph: return value > 32 && value < 127
            case .lower: return isLower
            case .print: return value >= 32 && value < 127
            case .punct: return value > 32 && value < 127 && !(isUpper || isLower || isDigit)
            case .space: return (9...13).contains(value) || value == 32
            case .upper: return isUpper
            case .xdigit: return isDigit || (65...70).contains(value) || (97...102).contains(value)
            }
        }
    }

    struct ParseError: Error {
        let reason: String
    }

    static func parse(_ pattern: [Unicode.Scalar]) throws(ParseError) -> [GlobToken] {
        var tokens: [GlobToken] = []
        var index = 0
        while index < pattern.count {
            let scalar = pattern[index]
            switch scalar {
            case "\\":
                guard index + 1 < pattern.count else { throw ParseError(reason: "it ends with a lone backslash") }
                tokens.append(.literal(pattern[index + 1]))
                index += 2
            case "?":
                tokens.append(.one)
                index += 1
            case "*":
                var end = index
                while end < pattern.count && pattern[end] == "*" { end += 1 }
                let startsPiece = index == 0 || pattern[index - 1] == "/"
                if end - index == 2 && startsPiece && end < pattern.count && pattern[end] == "/" {
                    tokens.append(.folders)
                    end += 1
                } else if end - index == 2 && startsPiece && end == pattern.count {
                    tokens.append(.anything)
                } else {
                    // Other runs of asterisks are one `*` (gitignore: "regular asterisks").
                    tokens.append(.name)
                }
                index = end
            case "[":
                let (token, next) = try parseSet(pattern, from: index)
                tokens.append(token)
                index = next
            default:
                tokens.append(.literal(scalar))
                index += 1
            }
        }
        return tokens
    }

    /// A bracket expression starting at `start` (`[`); the token and the index after `]`.
    private static func parseSet(_ pattern: [Unicode.Scalar], from start: Int) throws(ParseError) -> (GlobToken, Int) {
        var index = start + 1
        let negated = index < pattern.count && (pattern[index] == "!" || pattern[index] == "^")
        if negated { index += 1 }
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        var classes: [CharacterClass] = []
        var first = true
        while index < pattern.count {
            var scalar = pattern[index]
            if scalar == "]" && !first { return (.set(ranges: ranges, classes: classes, negated: negated), index + 1) }
            first = false
            if scalar == "[" && index + 1 < pattern.count && pattern[index + 1] == ":" {
                let nameStart = index + 2
                var end = nameStart
                while end + 1 < pattern.count && !(pattern[end] == ":" && pattern[end + 1] == "]") { end += 1 }
                guard end + 1 < pattern.count else { throw ParseError(reason: "a character class '[:' is not closed with ':]'") }
                let name = String(String.UnicodeScalarView(pattern[nameStart..<end]))
                guard let characterClass = CharacterClass(rawValue: name) else {
                    throw ParseError(reason: "'[:\(name):]' is no character class (alpha, digit, space, upper, ...)")
                }
                classes.append(characterClass)
                index = end + 2
                continue
            }
            if scalar == "\\" {
                guard index + 1 < pattern.count else { break }
                index += 1
                scalar = pattern[index]
            }
            if index + 2 < pattern.count && pattern[index + 1] == "-" && pattern[index + 2] != "]" {
                var upper = pattern[index + 2]
                var skip = 3
                if upper == "\\" && index + 3 < pattern.count {
                    upper = pattern[index + 3]
                    skip = 4
                }
                guard scalar <= upper else { throw ParseError(reason: "the range '\(scalar)-\(upper)' runs backwards") }
                ranges.append(scalar...upper)
                index += skip
            } else {
                ranges.append(scalar...scalar)
                index += 1
            }
        }
        throw ParseError(reason: "a '[' is not closed with ']'")
    }

    /// The scalar of a `.literal`.
    var literal: Unicode.Scalar? {
        if case .literal(let scalar) = self { scalar } else { nil }
    }

    static func literals(_ tokens: some Sequence<GlobToken>) -> [Unicode.Scalar] {
        tokens.compactMap(\.literal)
    }

    /// Whether the tokens match all of `subject`.
    static func match(_ tokens: [GlobToken], _ subject: [Unicode.Scalar]) -> Bool {
        var failed = Set<Int>()
        return match(tokens, 0, subject, 0, failed: &failed)
    }

    /// Backtracking, with the (token, position) pairs known to fail remembered, so that a
    /// pattern of many stars stays linear in practice.
    private static func match(_ tokens: [GlobToken], _ t: Int, _ subject: [Unicode.Scalar], _ s: Int, failed: inout Set<Int>) -> Bool {
        let key = t * (subject.count + 1) + s
        if failed.contains(key) { return false }
        let result: Bool
        if t == tokens.count {
            result = s == subject.count
        } else {
            switch tokens[t] {
            case .literal(let scalar):
                result = s < subject.count && subject[s] == scalar && match(tokens, t + 1, subject, s + 1, failed: &failed)
            case .one:
                result = s < subject.count && subject[s] != "/" && match(tokens, t + 1, subject, s + 1, failed: &failed)
            case .set(let ranges, let classes, let negated):
                if s < subject.count, subject[s] != "/" {
                    let inSet = ranges.contains { $0.contains(subject[s]) } || classes.contains { $0.contains(subject[s]) }
                    result = inSet != negated && match(tokens, t + 1, subject, s + 1, failed: &failed)
                } else {
                    result = false
                }
            case .name:
                var end = s
                var found = match(tokens, t + 1, subject, end, failed: &failed)
                while !found && end < subject.count && subject[end] != "/" {
                    end += 1
                    found = match(tokens, t + 1, subject, end, failed: &failed)
                }
                result = found
            case .anything:
                result = true
            case .folders:
                // Nothing, or up to and including any later `/`.
                var found = match(tokens, t + 1, subject, s, failed: &failed)
                var end = s
                while !found && end < subject.count {
                    if subject[end] == "/" { found = match(tokens, t + 1, subject, end + 1, failed: &failed) }
                    end += 1
                }
                result = found
            }
        }
        if !result { failed.insert(key) }
        return result
    }
}
