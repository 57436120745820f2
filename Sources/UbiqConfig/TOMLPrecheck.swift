/// Refuses the malformed TOML that toml++ 3.4 (inside TOMLKit) cannot refuse by itself: it
/// asserts on it, and so aborts the process, instead of reporting a syntax error.
///
/// - A table header whose key starts with a character no key starts with, such as `[` alone
///   on a line or `[[=` (fixed upstream after 3.4: marzer/tomlplusplus#301).
/// - A `}` where an array expects a value, such as `s = [}`.
/// - A value of ten characters shaped like a date, a space and one digit, such as
///   `d = 2000-01-01 9`: toml++ reads on as if a time followed.
/// - A character beyond ASCII outside strings and comments, such as U+0085 where an array
///   expects a value: toml++ takes U+0085, U+2028 and U+2029 for line breaks there but does
///   not step over them. TOML allows such characters only in strings and comments, so all
///   of them are refused there, not only these three.
///
/// A header is a `[` that starts a line outside any string, array or inline table; the
/// scan follows strings, comments and brackets just far enough to tell. A quote opens a
/// string only where a key or value may start; inside a value such as `8'x` toml++ reads
/// it as part of the value, and so does the scan.
enum TOMLPrecheck {
    static func check(_ text: String, file: String) throws(ConfigError) {
        var scanner = Scanner(bytes: Array(text.utf8))
        switch scanner.firstFlaw() {
        case nil:
            return
        case .headerWithoutKey(let line):
            throw ConfigError(.syntax, "a table header must start with a key, as in [agent] or [[container]]; fix the TOML syntax",
                              file: file, line: line)
        case .braceInArray(let line):
            throw ConfigError(.syntax, "'}' where an array expects a value or ']'; fix the TOML syntax", file: file, line: line)
        case .dateThenDigit(let line):
            throw ConfigError(.syntax, "a date followed by a space and one digit is no value; write a time as 2000-01-01T09:00:00",
                              file: file, line: line)
        case .nonASCII(let line, let scalar):
            let hex = String(scalar, radix: 16, uppercase: true)
            throw ConfigError(.syntax, "character U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex) outside a string or comment; TOML allows characters beyond ASCII only in quoted strings and comments: quote the key or value, or remove the character",
                              file: file, line: line)
        }
    }

    enum Flaw: Equatable {
        case headerWithoutKey(line: Int)
        case braceInArray(line: Int)
        case dateThenDigit(line: Int)
        case nonASCII(line: Int, scalar: UInt32)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1

        /// Where the text starts: toml++ skips a UTF-8 byte-order mark.
        var textStart: Int { bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0 }

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func firstFlaw() -> Flaw? {
            index = textStart
            /// The arrays (`[`) and inline tables (`{`) open around the scan.
            var open: [UInt8] = []
            var lineStart = true
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case ascii("\n"):
                    line += 1
                    lineStart = true
                    continue
                case ascii(" ") where dateThenDigit(space: index - 1):
                    return .dateThenDigit(line: line)
                case ascii(" "), ascii("\t"), ascii("\r"):
                    continue
                case ascii("#"):
                    while index < bytes.count, bytes[index] != ascii("\n") { index += 1 }
                case ascii("\""), ascii("'"):
                    if quoteOpensString(at: index - 1) { skipString(quote: byte) }
                case ascii("[") where open.isEmpty && lineStart:
                    if !headerStartsWithKey() { return .headerWithoutKey(line: line) }
                case ascii("["), ascii("{"):
                    open.append(byte)
                case ascii("}") where open.last == ascii("["):
                    return .braceInArray(line: line)
                case ascii("]"), ascii("}"):
                    _ = open.popLast()
                case 0x80...:
                    return .nonASCII(line: line, scalar: scalar(startingAt: index - 1))
                default:
                    break
                }
                lineStart = false
            }
            return nil
        }

        /// Whether the quote at `quote` opens a string, as it does at the start of a key or
        /// value. Inside a value that starts with a digit or sign, such as `8'x`, toml++ reads
        /// the quote as part of the value, so the scan must look on past it.
        func quoteOpensString(at quote: Int) -> Bool {
            guard quote > textStart else { return true }
            switch bytes[quote - 1] {
            case ascii(" "), ascii("\t"), ascii("\n"), ascii("="), ascii("["), ascii("{"), ascii(","), ascii("."):
                return true
            default:
                return false
            }
        }

        /// After a header's first `[`: steps over a second one and the spaces around, and
        /// says whether what follows may start a key (or is `]`, which toml++ refuses itself).
        mutating func headerStartsWithKey() -> Bool {
            skipBlanks()
            if index < bytes.count, bytes[index] == ascii("[") {
                index += 1
                skipBlanks()
            }
            guard index < bytes.count else { return true }
            switch bytes[index] {
            case ascii("a")...ascii("z"), ascii("A")...ascii("Z"), ascii("0")...ascii("9"),
                 ascii("_"), ascii("-"), ascii("\""), ascii("'"), ascii("]"):
                return true
            default:
                return false
            }
        }

        /// Whether the space at `space` ends a value toml++ takes for a date with a space
        /// before its time (ten characters besides `_`, a digit first, `-` fifth and eighth)
        /// and one digit and the value's end follow: toml++ asserts on that. Where the value
        /// starts is not tracked: the ten characters before the space are checked, which is
        /// invalid TOML wherever it starts.
        func dateThenDigit(space: Int) -> Bool {
            guard space + 2 < bytes.count, (ascii("0")...ascii("9")).contains(bytes[space + 1]),
                  Self.endsValue(bytes[space + 2]) || bytes[space + 2] >= 0x80
            else { return false }
            var characters: [UInt8] = []
            var position = space
            while characters.count < 10, position > 0, !Self.endsValue(bytes[position - 1]) {
                position -= 1
                if bytes[position] != ascii("_") { characters.insert(bytes[position], at: 0) }
            }
            guard characters.count == 10 else { return false }
            return (ascii("0")...ascii("9")).contains(characters[0]) && characters[4] == ascii("-") && characters[7] == ascii("-")
        }

        /// toml++'s value terminators, in ASCII: whitespace (`\t`, space, and `\n` to `\r`,
        /// vertical tab and form feed among them), `,`, `]`, `}` and `#`.
        static func endsValue(_ byte: UInt8) -> Bool {
            switch byte {
            case ascii(" "), ascii("\t"), 0x0A...0x0D, ascii(","), ascii("]"), ascii("}"), ascii("#"): true
            default: false
            }
        }

        /// The code point whose UTF-8 encoding starts at `start` (the text is valid UTF-8).
        func scalar(startingAt start: Int) -> UInt32 {
            let end = min(bytes.count, start + 4)
            var iterator = bytes[start..<end].makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return UInt32(bytes[start]) }
            return scalar.value
        }

        mutating func skipBlanks() {
            while index < bytes.count, bytes[index] == ascii(" ") || bytes[index] == ascii("\t") { index += 1 }
        }

        /// Steps past a string whose opening `quote` was just read, counting its lines.
        mutating func skipString(quote: UInt8) {
            let multiLine = index + 1 < bytes.count && bytes[index] == quote && bytes[index + 1] == quote
            if multiLine { index += 2 }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == ascii("\\") && quote == ascii("\"") {
                    index += 2
                    continue
                }
                if byte == ascii("\n") {
                    guard multiLine else { return }
                    line += 1
                }
                index += 1
                guard byte == quote else { continue }
                guard multiLine else { return }
                if index + 1 < bytes.count, bytes[index] == quote, bytes[index + 1] == quote {
                    index += 2
                    while index < bytes.count, bytes[index] == quote { index += 1 }
                    return
                }
            }
        }
    }
}

private func ascii(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }
