import Logging
import ServiceLifecycle
import UbiqSync
import UbiqTransport

/// Keeps a connection to one statically configured peer address: dials, hands the link to
/// the engine, and dials again when it ends, backing off while the peer is unreachable.
struct PeerDialer: Service {
    let host: String
    let port: Int
    let transport: PeerTransport
    let engine: SyncEngine
    let logger: Logger

    static let minimumDelay: Duration = .milliseconds(250)
    static let maximumDelay: Duration = .seconds(5)

    func run() async throws {
        var delay = Self.minimumDelay
        while !Task.isCancelledOrShuttingDown {
            do {
                let connection = try await transport.connect(host: host, port: port)
                delay = Self.minimumDelay
                await engine.serve(TransportPeerLink(connection: connection, isOutgoing: true))
            } catch {
                logger.debug("peer unreachable", metadata: ["address": "\(host):\(port)", "error": "\(error)"])
                delay = min(delay * 2, Self.maximumDelay)
            }
            try? await Task.sleep(for: delay)
        }
    }
}

extension Task where Success == Never, Failure == Never {
    static var isCancelledOrShuttingDown: Bool { isCancelled || isShuttingDownGracefully }
}

extension PeerDialer: CustomStringConvertible {
    var description: String { "PeerDialer(\(host):\(port))" }
}
