import Logging
import ServiceLifecycle
import UbiqSync
import UbiqTransport

/// Accepts authenticated peer connections on the listen address and hands each to the engine.
struct PeerAcceptor: Service {
    let listener: PeerListener
    let engine: SyncEngine
    let limits: BandwidthLimits

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await gracefulShutdown()
                await listener.close()
            }
            for await connection in listener.connections.cancelOnGracefulShutdown() {
                group.addTask { await engine.serve(TransportPeerLink(connection: connection, isOutgoing: false, limits: limits)) }
            }
        }
    }
}

extension PeerAcceptor: CustomStringConvertible {
    var description: String { "PeerAcceptor(port: \(listener.localPort))" }
}
