import NIOCore
import UbiqIdentity
import UbiqModel
import UbiqWire

/// An authenticated connection to another device of the account: ordered frames both ways
/// over mutually authenticated TLS 1.3. The connection closes when `close()` is called, when
/// the peer closes it, on any error, or when the last reference to this object goes away.
public final class PeerConnection: Sendable {
    /// The peer's device ID, derived from the public key of the certificate it presented.
    public let remoteDeviceID: DeviceID
    /// How the peer's certificate stands to this device's account CA: `member` for every
    /// connection but a rotation's hand-over.
    public let standing: AccountTrust.Standing
    /// The peer's address as `host:port`.
    public let remoteAddress: String
    /// What the peer sends. Iterate it once.
    public let frames: PeerFrames

    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let channel: any Channel
    private let counters: ByteCounters
    private let maximumFrameLength: Int

    init(
        remoteDeviceID: DeviceID,
        standing: AccountTrust.Standing,
        remoteAddress: String,
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        channel: any Channel,
        counters: ByteCounters,
        maximumFrameLength: Int
    ) {
        self.remoteDeviceID = remoteDeviceID
        self.standing = standing
        self.remoteAddress = remoteAddress
        self.frames = PeerFrames(inbound: inbound)
        self.outbound = outbound
        self.channel = channel
        self.counters = counters
        self.maximumFrameLength = maximumFrameLength
    }

    deinit {
        channel.close(promise: nil)
    }

    /// Bytes of frames (headers included) handed to TLS so far.
    public var bytesSent: Int { counters.sent.load(ordering: .relaxed) }
    /// Bytes of frames (headers included) received so far.
    public var bytesReceived: Int { counters.received.load(ordering: .relaxed) }

    /// Sends one frame. Waits while the peer is slow to read, so a fast sender cannot
    /// buffer without bound. Throws `FrameTooLarge` for an over-limit payload (nothing is
    /// sent) and `PeerTransportError.connectionClosed` once the connection is gone (a frame
    /// sent while the peer is closing may be lost without an error).
    public func send(_ payload: [UInt8]) async throws {
        try await send(FramedBytes(payload))
    }

    /// Sends a frame already built around its payload (an envelope's `frame()`), as
    /// `send(_:)` does, without copying it.
    public func send(_ frame: FramedBytes) async throws {
        guard frame.count <= maximumFrameLength else {
            throw FrameTooLarge(length: frame.count, limit: maximumFrameLength)
        }
        guard channel.isActive else { throw closedError() }
        do {
            try await outbound.write(frame.frame)
        } catch {
            throw closedError()
        }
    }

    private func closedError() -> PeerTransportError {
        PeerTransportError(.connectionClosed, "The connection to \(remoteAddress) is closed; frames can no longer be sent.")
    }

    /// Starts closing without waiting.
    func closeSoon() {
        channel.close(promise: nil)
    }

    /// Closes the connection (TLS close_notify, then TCP) and waits until it is closed.
    public func close() async {
        try? await channel.close()
    }
}
