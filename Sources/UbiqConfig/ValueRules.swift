import UbiqModel

/// The checks each single value goes through, whether it came from the file or a flag.
enum ValueRules {
    /// Longest path a Unix socket address holds on Linux (`sun_path` minus the NUL).
    static let maxSocketPathBytes = 107

    static func deviceName(_ raw: String) throws(ConfigError) -> String {
        guard !raw.isEmpty, raw.utf8.count <= 255, !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ConfigError(.invalidValue, "device name '\(raw)' must be 1 to 255 bytes without control characters")
        }
        return raw
    }

    static func logLevel(_ raw: String) throws(ConfigError) -> String {
        let level = raw.lowercased()
        guard AgentConfiguration.logLevels.contains(level) else {
            throw ConfigError(.invalidValue, "log level '\(raw)' is not one of \(AgentConfiguration.logLevels.joined(separator: ", "))")
        }
        return level
    }

    static func packageExtension(_ raw: String) throws(ConfigError) -> String {
        let trimmed = raw.hasPrefix(".") ? String(raw.dropFirst()) : raw
        guard !trimmed.isEmpty, !trimmed.contains("/"), !trimmed.contains("."), !trimmed.contains(where: \.isWhitespace) else {
            throw ConfigError(.invalidValue, "package extension '\(raw)' must be a single extension such as \"pages\"")
        }
        return trimmed.lowercased()
    }

    static func containerID(_ raw: String) throws(ConfigError) -> ContainerID {
        do {
            return try ContainerID(raw)
        } catch {
            throw ConfigError(.invalidContainerID, error.reason)
        }
    }

    static func socketPath(_ path: String) throws(ConfigError) -> String {
        guard path.utf8.count <= maxSocketPathBytes else {
            throw ConfigError(.invalidPath, "control socket path '\(path)' is longer than \(maxSocketPathBytes) bytes; choose a shorter one with --socket or [agent] socket")
        }
        return path
    }

    static func milliseconds(_ value: Int, name: String) throws(ConfigError) -> Int {
        guard (0...3_600_000).contains(value) else {
            throw ConfigError(.invalidValue, "\(name) is \(value); use 0 to 3600000 milliseconds")
        }
        return value
    }

    /// Ignore patterns, each a valid gitignore line.
    static func ignorePatterns(_ patterns: [String]) throws(ConfigError) -> [String] {
        for (index, text) in patterns.enumerated() {
            do { _ = try IgnorePattern(text, source: .config, line: index + 1) } catch {
                throw ConfigError(.invalidValue, "ignore pattern \(index + 1) '\(text)' is no pattern: \(error.reason)")
            }
        }
        return patterns
    }

    static func joinPort(_ value: Int) throws(ConfigError) -> Int {
        guard (0...65535).contains(value) else {
            throw ConfigError(.invalidValue, "the join port must be from 0 (any) to 65535, not \(value)")
        }
        return value
    }

    static func limit(_ value: Int, name: String, ceiling: Int) throws(ConfigError) -> Int {
        guard value > 0, value <= ceiling else {
            throw ConfigError(.invalidValue, "\(name) is \(value); it must be between 1 and \(ceiling)")
        }
        return value
    }

    static func deviceID(_ raw: String) throws(ConfigError) -> DeviceID {
        guard DeviceID.isWellFormed(raw) else {
            throw ConfigError(.invalidValue, "device = \"\(raw)\" is not a device ID; copy one from `ubiq devices`")
        }
        return DeviceID(raw)
    }

    static func download(_ raw: String) throws(ConfigError) -> ContainerSettings.Download {
        guard let policy = ContainerSettings.Download(rawValue: raw) else {
            throw ConfigError(.invalidValue, "download = \"\(raw)\" must be \"all\" or \"on-demand\"")
        }
        return policy
    }
}
