import Foundation
import UbiqModel

/// Where agent and clients meet when no `--socket` is given (DESIGN.md §5).
public enum ControlSocketPath {
    /// `$XDG_RUNTIME_DIR/ubiq/agent.sock`, else `<state>/agent.sock`.
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let paths = DefaultPaths(environment: environment)
        return paths.controlSocket(stateDirectory: paths.stateDirectory)
    }
}
