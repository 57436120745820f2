import Foundation
import Logging
import ServiceLifecycle
import UbiqConfig
import UbiqDiscovery
import UbiqControl
import UbiqControlAPI
import UbiqFileSystem
import UbiqIdentity
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTransport
import UbiqWire

/// The agent: the control socket, the web page, and the signed-in account's parts
/// (``SyncSession``, run by ``AccountService``), together in a `ServiceGroup` until SIGTERM or SIGINT.
public struct AgentRuntime: Sendable {
    public static let version = UbiqRelease.version

    let configuration: AgentConfiguration
    let logger: Logger

    public init(configuration: AgentConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let locks = try AgentLocks.take(configuration)
        defer { withExtendedLifetime(locks) {} }
        let host = AgentHost(configuration: configuration, logger: logger)
        let webPage = WebPageState(enabled: configuration.ui != nil)
        let control = ControlServer(configuration: .init(socketPath: configuration.socketPath),
                                    handler: AgentControlHandler(host: host, webPage: webPage), logger: logger)
        let account = AccountService(host: host, logger: logger) { session, created in
            printBanner(identity: session.identity, created: created, listening: session.listening)
            logger.info("agent started", metadata: ["listen": "\(session.listening)", "peers": "\(configuration.peers.map(\.description))"])
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: ControlService(server: control)), .init(service: account)]
        if let listen = configuration.ui {
            services.append(.init(service: WebPageService(listen: listen, configuration: configuration, state: webPage, logger: logger)))
        }
        let group = ServiceGroup(configuration: .init(
            services: services,
            cancellationSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }

    private func printBanner(identity: DeviceIdentity, created: Bool, listening: [String]) {
        var lines = ["ubiqd \(Self.version)"]
        if created { lines.append("created a new account and device identity in \(configuration.stateDirectory)") }
        lines.append("identity token: \(identity.identityToken)")
        lines.append("device: \(identity.deviceID) (\(configuration.deviceName))")
        for container in configuration.containers {
            lines.append("container \(container.id): \(container.path)")
        }
        for store in configuration.kvstores { lines.append("key-value store \(store)") }
        lines.append("socket: \(configuration.socketPath)")
        for address in listening { lines.append("listening: \(address)") }
        if let ui = configuration.ui {
            let host = ui.host.contains(":") ? "[\(ui.host)]" : ui.host
            lines.append(ui.port == 0 ? "web page: `ubiq ui` opens it" : "web page: http://\(host):\(ui.port)/ (`ubiq ui` opens it, with its token)")
        }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
