import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import UbiqIdentity
import UbiqModel
import UbiqWire

/// The channel pipeline of every peer connection, dialled or accepted:
/// TLS → frame decoder → authentication → byte counters → close on error → the async channel
/// the application reads payloads from and writes whole frames to (`FramedBytes`).
enum PeerPipeline {
    /// A connection whose pipeline is set up but whose peer is not yet authenticated.
    struct Pending: Sendable {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        let authenticated: EventLoopFuture<AuthenticatedPeer>
        let counters: ByteCounters
        /// The peer's address when it was known at configuration time (accepted connections).
        let acceptedFrom: SocketAddress?

        /// The peer's `host:port`.
        var remoteAddress: String { PeerPipeline.describe(acceptedFrom ?? channel.channel.remoteAddress) }
    }

    static func configure(
        _ channel: any Channel,
        tlsHandler: (@escaping NIOSSLCustomVerificationCallback) throws -> NIOSSLHandler,
        maximumFrameLength: Int,
        handshakeTimeout: TimeAmount,
        trust: AccountTrust,
        logger: Logger,
        refusing: @escaping @Sendable (DeviceID, AccountTrust.Standing) -> Bool
    ) throws -> Pending {
        channel.eventLoop.assertInEventLoop()
        let promise = channel.eventLoop.makePromise(of: AuthenticatedPeer.self)
        let counters = ByteCounters()
        let checked = NIOLockedValueBox<AuthenticatedPeer?>(nil)
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(try tlsHandler(verifier(trust, logger: logger, keepingIn: checked)))
        try operations.addHandler(FrameDecoder(maximumFrameLength: maximumFrameLength))
        try operations.addHandler(PeerAuthenticationHandler(promise: promise, timeout: handshakeTimeout, checked: checked, refusing: refusing))
        try operations.addHandler(ByteCountingHandler(counters: counters))
        try operations.addHandler(CloseOnErrorHandler())
        let asyncChannel = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        return Pending(
            channel: asyncChannel,
            authenticated: promise.futureResult,
            counters: counters,
            acceptedFrom: channel.remoteAddress
        )
    }

    /// Checks the peer's chain in TLS with ``AccountTrust`` instead of BoringSSL's roots (a
    /// rotation's chains need it), and keeps what it found in `checked` for
    /// ``PeerAuthenticationHandler``, so the chain is checked once per connection.
    static func verifier(_ trust: AccountTrust, logger: Logger,
                         keepingIn checked: NIOLockedValueBox<AuthenticatedPeer?>) -> NIOSSLCustomVerificationCallback {
        { chain, promise in
            do {
                let result = try trust.check(chain: chain.map { try $0.toDERBytes() })
                checked.withLockedValue { $0 = AuthenticatedPeer(device: result.device, standing: result.standing) }
            } catch {
                logger.warning("refused a peer's certificate", metadata: ["reason": "\(error)"])
                promise.succeed(.failed)
                return
            }
            promise.succeed(.certificateVerified)
        }
    }

    /// `host:port` as `SocketAddress.peerText` writes it.
    static func describe(_ address: SocketAddress?) -> String {
        address?.peerText ?? "unknown address"
    }
}
