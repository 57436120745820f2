/// Where ubiq keeps things when no flag or config says otherwise (DESIGN.md §5, §6),
/// computed from an environment dictionary so that it stays testable.
public struct DefaultPaths: Sendable {
    public let environment: [String: String]

    public init(environment: [String: String]) { self.environment = environment }

    var home: String { environment["HOME"] ?? "/" }

    private func xdg(_ name: String, fallback: String) -> String {
        if let value = environment[name], value.hasPrefix("/") { return value }
        return home + "/" + fallback
    }

    /// `$XDG_STATE_HOME/ubiq`, else `~/.local/state/ubiq`.
    public var stateDirectory: String { xdg("XDG_STATE_HOME", fallback: ".local/state") + "/ubiq" }

    /// `$XDG_CONFIG_HOME/ubiq/ubiqd.toml`, else `~/.config/ubiq/ubiqd.toml`.
    public var configFile: String { xdg("XDG_CONFIG_HOME", fallback: ".config") + "/ubiq/ubiqd.toml" }

    /// `$XDG_RUNTIME_DIR/ubiq/agent.sock`, else `<state>/agent.sock`.
    public func controlSocket(stateDirectory: String) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/ubiq/agent.sock" }
        return stateDirectory + "/agent.sock"
    }

    /// `~/Ubiquity/<identifier>`.
    public func containerFolder(_ id: ContainerID) -> String { home + "/Ubiquity/" + id.rawValue }

    /// Expands a leading `~/` against the home folder.
    public func expandingTilde(_ path: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        return path
    }
}
