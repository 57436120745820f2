/// Where one setting came from, so that errors found after merging can still point at it.
enum ConfigOrigin: Hashable, Sendable {
    case file(String, line: Int?)
    case flag(String)
    /// A built-in default, e.g. the `ubiq.drive` container.
    case defaults

    var label: String {
        switch self {
        case let .file(file, line?): "\(file) line \(line)"
        case let .file(file, nil): file
        case let .flag(name): name
        case .defaults: "the defaults"
        }
    }

    func error(_ code: ConfigError.Code, _ reason: String) -> ConfigError {
        switch self {
        case let .file(file, line): ConfigError(code, reason, file: file, line: line)
        case let .flag(name): ConfigError(code, "\(name): \(reason)")
        case .defaults: ConfigError(code, "\(reason) (this is a default; override it in the config file or with a flag)")
        }
    }
}
