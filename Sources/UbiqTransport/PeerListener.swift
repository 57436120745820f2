import Logging
import NIOCore
import UbiqModel

/// A listening socket for peers. `connections` yields only peers that passed the mutual
/// handshake; refused ones are logged with the reason and their address, and never appear.
/// Handshakes run concurrently, so a slow or silent client delays no one else.
public final class PeerListener: Sendable {
    /// The port actually bound (useful after listening on port 0).
    public let localPort: Int
    /// Authenticated incoming connections. Ends when the listener is closed.
    public let connections: AsyncStream<PeerConnection>

    private let serverChannel: any Channel

    init(server: NIOAsyncChannel<PeerPipeline.Pending, Never>, maximumFrameLength: Int, logger: Logger) {
        self.localPort = server.channel.localAddress?.port ?? 0
        self.serverChannel = server.channel
        let (connections, continuation) = AsyncStream.makeStream(of: PeerConnection.self)
        self.connections = connections
        let serverChannel = server.channel
        continuation.onTermination = { _ in serverChannel.close(promise: nil) }
        logger.info("Listening for peers")

        // The accept loop lives as long as the server channel; closing the listener (or
        // dropping `connections`) closes the channel, which ends the loop.
        Task {
            try? await server.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await pending in inbound {
                        group.addTask {
                            await Self.admit(pending, maximumFrameLength: maximumFrameLength, into: continuation, logger: logger)
                        }
                    }
                    continuation.finish()
                }
            }
            continuation.finish()
        }
    }

    /// Stops accepting connections. Connections already handed out stay open.
    public func close() async {
        try? await serverChannel.close()
    }

    private static func admit(
        _ pending: PeerPipeline.Pending,
        maximumFrameLength: Int,
        into continuation: AsyncStream<PeerConnection>.Continuation,
        logger: Logger
    ) async {
        let remote: AuthenticatedPeer
        do {
            remote = try await pending.authenticated.get()
        } catch {
            logger.warning(
                "Refused a peer connection",
                metadata: ["peer.address": "\(pending.remoteAddress)", "reason": "\(error)"]
            )
            try? await pending.channel.executeThenClose { _, _ in }
            return
        }
        logger.info(
            "Accepted a peer connection",
            metadata: ["peer.address": "\(pending.remoteAddress)", "peer.device": "\(remote.device)", "peer.standing": "\(remote.standing)"]
        )
        await PeerConnectionScope.run(pending, remote: remote, maximumFrameLength: maximumFrameLength) { connection in
            if case .terminated = continuation.yield(connection) {
                connection.closeSoon()
            }
        }
    }
}
