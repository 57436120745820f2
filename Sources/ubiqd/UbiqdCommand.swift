import ArgumentParser
import Foundation
import Logging
import UbiqAgent
import UbiqConfig

/// `ubiqd`: the agent. Flags override the config file, which overrides the defaults.
@main
struct UbiqdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiqd",
        abstract: "The ubiq agent: keeps this workstation's containers in sync with the account's other devices.",
        version: "ubiqd \(AgentRuntime.version)")

    @Option(help: "State folder: identity, index, conflict versions (default $XDG_STATE_HOME/ubiq).")
    var state: String?
    @Option(help: "Config file (default $XDG_CONFIG_HOME/ubiq/ubiqd.toml, if it exists).")
    var config: String?
    @Option(help: ArgumentHelp("Address to accept peers on, HOST:PORT (repeatable).", valueName: "host:port"))
    var listen: [String] = []
    @Option(help: ArgumentHelp("A peer to connect to, HOST:PORT (repeatable).", valueName: "host:port"))
    var peer: [String] = []
    @Option(help: ArgumentHelp("A container to sync, ID or ID=PATH (repeatable).", valueName: "id[=path]"))
    var container: [String] = []
    @Flag(help: "Do not use mDNS discovery; only the configured peers.")
    var noDiscovery = false
    @Option(help: "Control socket path (default $XDG_RUNTIME_DIR/ubiq/agent.sock).")
    var socket: String?
    @Option(help: "A key-value store identifier (repeatable).")
    var kvstore: [String] = []
    @Option(help: "This device's name as peers see it (default: the host name).")
    var deviceName: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?
    @Option(help: ArgumentHelp("Where to serve the web page, HOST:PORT (default 127.0.0.1:22180). `ubiq ui` prints its address. Set UBIQ_UI_PAGE_DIR to serve the page's files from that folder instead of the built-in copy, when working on them.", valueName: "host:port"))
    var uiListen: String?
    @Flag(help: "Do not serve the web page.")
    var noUI = false
    @Option(help: ArgumentHelp("Where an open invitation (`ubiq device invite`) takes joins (default: the listen port's next; 0: any).", valueName: "port"))
    var joinPort: Int?

    func run() async throws {
        let overrides = ConfigOverrides(
            state: state.map(Self.absolute), config: config, listen: listen, peers: peer,
            containers: container.map(Self.absoluteContainer), noDiscovery: noDiscovery,
            socket: socket.map(Self.absolute), kvstores: kvstore, deviceName: deviceName, logLevel: logLevel,
            uiListen: uiListen, noUI: noUI, joinPort: joinPort)
        let configuration: AgentConfiguration
        do {
            configuration = try ConfigLoader.load(overrides: overrides, environment: ProcessInfo.processInfo.environment)
        } catch {
            // The error says what to fix; the whole usage line after it would bury it.
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            throw ExitCode.validationFailure
        }
        let level = Logger.Level(rawValue: configuration.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "ubiqd")
        do {
            try await AgentRuntime(configuration: configuration, logger: logger).run()
            logger.info("agent stopped")
        } catch {
            logger.critical("agent stopped", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
    }

    /// Flags are relative to the working directory; the loader only takes absolute paths.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") || path.hasPrefix("~") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    static func absoluteContainer(_ flag: String) -> String {
        guard let equals = flag.firstIndex(of: "=") else { return flag }
        return String(flag[..<equals]) + "=" + absolute(String(flag[flag.index(after: equals)...]))
    }
}
