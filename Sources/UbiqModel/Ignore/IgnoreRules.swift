/// What a container does not sync: the built-in temporary-file patterns (unless switched
/// off), this device's extra patterns from the config, and `.ubiqignore`, in that order of
/// precedence (lowest first, as git ranks `core.excludesFile`, `info/exclude` and
/// `.gitignore`); within them, the last matching line decides. A path inside an ignored
/// folder is ignored whatever later lines say (gitignore(5): "It is not possible to
/// re-include a file if a parent directory of that file is excluded").
public struct IgnoreRules: Sendable, Hashable {
    /// Where the synced list lives, at the container's root. Never ignored itself, so every
    /// device reads the same one.
    public static let fileName = ".ubiqignore"
    /// The most bytes of `.ubiqignore` read; a longer file is refused whole.
    public static let maxFileBytes = 1 << 20

    /// Editors' swap, backup and lock files and desktops' temporary files.
    public static let defaultPatterns = ["*.swp", "*~", ".#*", ".~lock.*#", ".goutputstream-*"]

    public let patterns: [IgnorePattern]
    /// Lines that are no pattern, each left out.
    public let problems: [IgnorePatternError]
    /// Whether a pattern looks at the whole path, not only the last name.
    private let anyAnchored: Bool

    /// No pattern at all.
    public static let none = IgnoreRules(defaults: false, config: [], file: nil)

    /// `file`: the text of `.ubiqignore`, nil where there is none.
    public init(defaults: Bool, config: [String], file: String?) {
        var patterns: [IgnorePattern] = []
        var problems: [IgnorePatternError] = []
        func add(_ lines: [Substring], _ source: IgnoreSource) {
            for (offset, line) in lines.enumerated() {
                do {
                    if let pattern = try IgnorePattern(String(line), source: source, line: offset + 1) { patterns.append(pattern) }
                } catch {
                    problems.append(error)
                }
            }
        }
        if defaults { add(Self.defaultPatterns.map { $0[...] }, .defaults) }
        add(config.map { $0[...] }, .config)
        if let file { add(file.split(separator: "\n", omittingEmptySubsequences: false), .file) }
        self.patterns = patterns
        self.problems = problems
        anyAnchored = patterns.contains(where: \.anchored)
    }

    public var isEmpty: Bool { patterns.isEmpty }

    /// How a line is named to people: `.ubiqignore line 3: node_modules/`.
    public static func describe(_ pattern: IgnorePattern) -> String {
        "\(pattern.source.rawValue) line \(pattern.line): \(pattern.text)"
    }

    /// The line that makes `path` ignored (its own, or a folder's above it); nil where the
    /// path is synced. Each folder above is the path up to one of its slashes: the puller
    /// asks this of every need in every pass, so no path value is built for them.
    public func ignoring(_ path: RelativePath, isDirectory: Bool) -> IgnorePattern? {
        guard !patterns.isEmpty, path.rawValue != Self.fileName else { return nil }
        let scalars = Array(path.rawValue.unicodeScalars)
        var nameStart = 0
        for (index, scalar) in scalars.enumerated() where scalar == "/" {
            if let pattern = decision(path: Array(scalars[..<index]), name: Array(scalars[nameStart..<index]), isDirectory: true) {
                return pattern
            }
            nameStart = index + 1
        }
        return decision(path: scalars, name: Array(scalars[nameStart...]), isDirectory: isDirectory)
    }

    /// The line that ignores `path` itself, its folders aside: for a walk that never enters
    /// an ignored folder.
    public func ignoringItself(_ path: RelativePath, isDirectory: Bool) -> IgnorePattern? {
        guard !patterns.isEmpty, path.rawValue != Self.fileName else { return nil }
        // The whole path in scalars only where a pattern looks at it: a scan asks this of every name.
        return decision(path: anyAnchored ? Array(path.rawValue.unicodeScalars) : [], name: Array(path.name.unicodeScalars),
                        isDirectory: isDirectory)
    }

    /// The last line that matches the path itself, when it is an ignoring one.
    private func decision(path: [Unicode.Scalar], name: [Unicode.Scalar], isDirectory: Bool) -> IgnorePattern? {
        guard let last = patterns.last(where: { $0.matches(path: path, name: name, isDirectory: isDirectory) }), !last.negated else {
            return nil
        }
        return last
    }
}
