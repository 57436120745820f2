import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import NIOTLS
import UbiqIdentity
import UbiqModel
import UbiqWire

/// Decides whether a freshly connected peer may talk to us, and tells the peer our answer.
///
/// TLS has already checked the peer's certificate against the account CA when the handshake
/// completes; this handler then requires ALPN `ubiq/1`, derives the peer's device ID from its
/// certificate, refuses a device removed from the account, and sends an empty frame, the
/// preface. The connection counts as authenticated only once the peer's preface arrives too:
/// in TLS 1.3 a client finishes its handshake before the server has looked at the client's
/// certificate, so without the preface a refused client would believe it had connected.
/// The peer a connection was authenticated with: its device and how its certificate stands
/// to this device's account CA.
struct AuthenticatedPeer: Sendable {
    let device: DeviceID
    let standing: AccountTrust.Standing
}

final class PeerAuthenticationHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Why authentication failed, in words for the log and for `PeerTransportError`.
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    private enum State {
        case handshaking
        case awaitingPreface(AuthenticatedPeer)
        case authenticated
        case failed
    }

    private var state = State.handshaking
    private let promise: EventLoopPromise<AuthenticatedPeer>
    private let timeout: TimeAmount
    private var timeoutTask: Scheduled<Void>?
    /// What the TLS verification callback found in the peer's chain.
    private let checked: NIOLockedValueBox<AuthenticatedPeer?>
    private let refusing: @Sendable (DeviceID, AccountTrust.Standing) -> Bool

    init(promise: EventLoopPromise<AuthenticatedPeer>, timeout: TimeAmount, checked: NIOLockedValueBox<AuthenticatedPeer?>,
         refusing: @escaping @Sendable (DeviceID, AccountTrust.Standing) -> Bool) {
        self.promise = promise
        self.timeout = timeout
        self.checked = checked
        self.refusing = refusing
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let timeout = self.timeout
        timeoutTask = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            self.fail(context: context, reason: "the handshake did not finish within \(timeout)")
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeoutTask?.cancel()
        if case .authenticated = state { return }
        state = .failed
        promise.fail(Failure(reason: "the connection was torn down during the handshake"))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted(let negotiated) = event as? TLSUserEvent, case .handshaking = state {
            handshakeCompleted(context: context, negotiatedProtocol: negotiated)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func handshakeCompleted(context: ChannelHandlerContext, negotiatedProtocol: String?) {
        guard negotiatedProtocol == PeerTransport.applicationProtocol else {
            fail(context: context, reason: "the peer does not speak \(PeerTransport.applicationProtocol) (ALPN: \(negotiatedProtocol ?? "none"))")
            return
        }
        guard let peer = checked.withLockedValue({ $0 }) else {
            fail(context: context, reason: "the peer presented no certificate")
            return
        }
        guard !refusing(peer.device, peer.standing) else {
            fail(context: context, reason: peer.standing == .behind
                ? "device \(peer.device) is not a member of the rotated account"
                : "device \(peer.device) was removed from the account")
            return
        }
        state = .awaitingPreface(peer)
        context.writeAndFlush(Self.wrapOutboundOut(FramedBytes(repeating: 0, count: 0).frame), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .authenticated:
            context.fireChannelRead(data)
        case .awaitingPreface(let peer):
            guard Self.unwrapInboundIn(data).readableBytes == 0 else {
                fail(context: context, reason: "the peer's first frame was not the \(PeerTransport.applicationProtocol) preface")
                return
            }
            state = .authenticated
            timeoutTask?.cancel()
            promise.succeed(peer)
        case .handshaking, .failed:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .authenticated = state {
            context.fireErrorCaught(error)
        } else {
            let address = context.remoteAddress.map(\.peerText) ?? "the peer"
            fail(context: context, reason: ConnectionFailure.reason(error, address: address) ?? "\(error)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(context: context, reason: "the peer closed the connection during the handshake")
        context.fireChannelInactive()
    }

    private func fail(context: ChannelHandlerContext, reason: String) {
        switch state {
        case .authenticated, .failed:
            return
        case .handshaking, .awaitingPreface:
            state = .failed
            timeoutTask?.cancel()
            promise.fail(Failure(reason: reason))
            context.close(promise: nil)
        }
    }
}
