import Logging
import UbiqConfig
import UbiqTransport

/// Opens the peer listeners the configuration names. The default, `[::]:22100`, is
/// dual-stack; a host with no IPv6 at all cannot open it, and gets `0.0.0.0:22100` instead
/// with a log line, so the agent starts either way. Addresses the user wrote are opened as
/// written and fail as such.
enum PeerListening {
    struct Opened {
        let listener: PeerListener
        /// `host:port` with the port actually bound, for the banner and `agent.status`.
        let address: String
    }

    static func open(_ config: AgentConfiguration, transport: PeerTransport, logger: Logger) async throws -> [Opened] {
        var opened: [Opened] = []
        for address in config.listen {
            var host = address.host
            let listener: PeerListener
            do {
                listener = try await transport.listen(host: host, port: address.port)
            } catch let error as PeerTransportError where error.code == .addressUnavailable && config.listenIsDefault {
                host = AgentConfiguration.ipv4Listen.host
                logger.notice("no IPv6 on this host; listening on IPv4 only", metadata: [
                    "listen.host": "\(host)", "reason": "\(error.message)",
                ])
                listener = try await transport.listen(host: host, port: address.port)
            }
            let shown = host.contains(":") ? "[\(host)]:\(listener.localPort)" : "\(host):\(listener.localPort)"
            opened.append(Opened(listener: listener, address: shown))
        }
        return opened
    }
}
