import Logging
import ServiceLifecycle
import UbiqSync
import UbiqTransport

/// Accepts authenticated peer connections on the listen address and hands each to the engine.
struct PeerAcceptor: Service {
    let listener: PeerListener
    let engine: SyncEngine
    let limits: BandwidthLimits
    /// For a peer of another generation of the account CA: the rotation's hand-over.
    let handOver: RotationHandOver

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await gracefulShutdown()
                await listener.close()
            }
            for await connection in listener.connections.cancelOnGracefulShutdown() {
                group.addTask { [handOver] in
                    if connection.standing != .member {
                        await handOver.run(connection)
                    } else {
                        await engine.serve(TransportPeerLink(connection: connection, isOutgoing: false, limits: limits))
                    }
                }
            }
            // The listener is closed: the sessions of accepted connections end with it, as
            // dialed ones do, so a sign-out or a rotation's restart does not wait on a peer.
            group.cancelAll()
        }
    }
}

extension PeerAcceptor: CustomStringConvertible {
    var description: String { "PeerAcceptor(port: \(listener.localPort))" }
}
