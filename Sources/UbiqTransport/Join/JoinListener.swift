import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import UbiqIdentity
import UbiqWire

/// Where a member device takes joins while an invite is open: a listener of its own on the
/// join port (`join_port`, the sync port's next by default), closed with the invite. Each connection gets one exchange: the joiner's
/// proof in, `answer`'s verdict out, then the connection closes.
public final class JoinListener: Sendable {
    public let port: Int
    private let server: any Channel

    private init(port: Int, server: any Channel) {
        self.port = port
        self.server = server
    }

    /// Listens on `host` at `port` (0: chosen by the system) as `identity`; `answer` decides
    /// each attempt.
    public static func open(identity: DeviceIdentity, host: String, port: Int, logger: Logger,
                            answer: @escaping @Sendable (JoinAttempt) async -> JoinAnswer) async throws -> JoinListener {
        let context = try NIOSSLContext(configuration: JoinTLS.configuration(
            certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM, server: true))
        let ownCertificate = identity.certificateDER
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try JoinTLS.configure(channel, tls: NIOSSLServerHandler(context: context, customVerificationCallback: JoinTLS.acceptAny))
                    Task { await serve(channel, ownCertificate: ownCertificate, logger: logger, answer: answer) }
                }
            }
            .bind(host: host, port: port)
            .get()
        guard let port = server.localAddress?.port else { throw JoinError("the join listener has no port") }
        return JoinListener(port: port, server: server)
    }

    public func close() async {
        try? await server.close()
    }

    private static func serve(_ channel: any Channel, ownCertificate: [UInt8], logger: Logger,
                              answer: @escaping @Sendable (JoinAttempt) async -> JoinAnswer) async {
        let from = channel.remoteAddress?.description ?? "unknown"
        let reply: JoinAnswer
        do {
            let frames = try await JoinTLS.handlers(of: channel)
            let frame = try await JoinFrames.first(from: frames.firstFrame, on: channel)
            let request = try JSONDecoder().decode(JoinRequest.self, from: frame)
            let joiner = try await JoinTLS.peerCertificate(of: channel)
            let binding = JoinCode.binding(inviterCertificate: ownCertificate, joinerCertificate: joiner)
            reply = await answer(JoinAttempt(proof: Array(request.proof), binding: binding, name: request.name, from: from,
                                             certificateDER: joiner))
        } catch {
            logger.warning("a join attempt failed before its proof",
                           metadata: ["from": "\(from)", "reason": "\(ConnectionFailure.reason(error, address: from) ?? "\(error)")"])
            logger.debug("the join attempt's error", metadata: ["from": "\(from)", "error": "\(error)"])
            try? await channel.close()
            return
        }
        try? await JoinFrames.send(reply, on: channel)
        try? await channel.close()
    }
}

/// One JSON message per frame on a join connection, read with a deadline.
enum JoinFrames {
    static let timeout: TimeAmount = .seconds(10)

    static func send(_ message: some Encodable, on channel: any Channel) async throws {
        let payload = try JSONEncoder().encode(message)
        try await channel.writeAndFlush(FramedBytes(payload).frame)
    }

    /// The first frame that arrives, within ``timeout``. `collector` is looked up as soon as
    /// the connection is made: once the other side has answered and closed, the pipeline
    /// holds no handlers.
    static func first(from collector: FirstFrame, on channel: any Channel) async throws -> Data {
        let timer = channel.eventLoop.scheduleTask(in: timeout) { collector.promise.fail(JoinError("no answer within \(timeout)")) }
        defer { timer.cancel() }
        var buffer = try await collector.promise.futureResult.get()
        return Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
    }
}

/// Hands the first frame to a promise; fails it when the connection ends first.
final class FirstFrame: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let promise: EventLoopPromise<ByteBuffer>

    init(promise: EventLoopPromise<ByteBuffer>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        promise.succeed(Self.unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(JoinError("the other side closed the connection", unreachable: false, closedWithoutAnswer: true))
    }

    /// A connection never made (refused, unknown host) removes the handler unfulfilled.
    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(JoinError("the connection ended before an answer"))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}

/// Fulfils a promise when the TLS handshake completes; fails it when the connection ends
/// first.
final class HandshakeDone: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(JoinError("the other side closed the connection during the handshake"))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(JoinError("the connection ended before its handshake"))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }
}
