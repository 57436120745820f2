import UbiqModel

/// How configured paths are made absolute and compared, so that `~/a/../b/` and `~/b`
/// count as the same folder.
enum PathRules {
    /// Expands `~` and `~/…`, requires an absolute result, and normalises it.
    static func absolute(_ raw: String, paths: DefaultPaths, what: String) throws(ConfigError) -> String {
        guard !raw.isEmpty, !raw.utf8.contains(0) else {
            throw ConfigError(.invalidPath, "\(what) is empty or contains a NUL byte")
        }
        let expanded = paths.expandingTilde(raw)
        guard expanded.hasPrefix("/") else {
            throw ConfigError(.invalidPath, "\(what) '\(raw)' is not absolute; write a path starting with / or ~/")
        }
        return normalised(expanded)
    }

    /// Drops empty and `.` components and applies `..`; the input must be absolute.
    static func normalised(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// Whether the folders are the same or one contains the other; both normalised.
    static func overlap(_ a: String, _ b: String) -> Bool {
        a == b || a == "/" || b == "/" || a.hasPrefix(b + "/") || b.hasPrefix(a + "/")
    }
}
