import NIOCore
import UbiqModel

/// Keeps an authenticated channel's `executeThenClose` scope open for as long as the
/// channel lives, and hands the `PeerConnection` made inside it to its owner. NIO gives out a
/// channel's reader and writer only inside that scope; the scope ends, closing the channel,
/// once the channel has closed for any reason.
enum PeerConnectionScope {
    /// Runs the scope; `deliver` receives the connection as soon as it exists.
    static func run(
        _ pending: PeerPipeline.Pending,
        remote: AuthenticatedPeer,
        maximumFrameLength: Int,
        deliver: (PeerConnection) -> Void
    ) async {
        let channel = pending.channel.channel
        try? await pending.channel.executeThenClose { inbound, outbound in
            deliver(
                PeerConnection(
                    remoteDeviceID: remote.device,
                    standing: remote.standing,
                    remoteAddress: pending.remoteAddress,
                    inbound: inbound,
                    outbound: outbound,
                    channel: channel,
                    counters: pending.counters,
                    maximumFrameLength: maximumFrameLength
                )
            )
            try await channel.closeFuture.get()
        }
    }

    /// Runs the scope in a task of its own (for dialled connections, which have no owning
    /// task group) and returns the connection.
    static func detached(
        _ pending: PeerPipeline.Pending,
        remote: AuthenticatedPeer,
        maximumFrameLength: Int
    ) async -> PeerConnection {
        await withCheckedContinuation { continuation in
            Task {
                await run(pending, remote: remote, maximumFrameLength: maximumFrameLength) {
                    continuation.resume(returning: $0)
                }
            }
        }
    }
}
