import NIOCore
import NIOSSL
import UbiqIdentity
import UbiqWire

/// TLS for joining with a code: TLS 1.3, ALPN `ubiq-join/1`, both sides present a
/// certificate, and neither is checked against a CA (the joiner has none yet): the code's
/// proofs, bound to both certificates, are what authenticate the two sides.
enum JoinTLS {
    static let applicationProtocol = "ubiq-join/1"
    static let maximumFrameLength = 1 << 20

    static func configuration(certificatePEM: String, privateKeyPEM: String, server: Bool) throws -> TLSConfiguration {
        try PeerTransport.mutualTLS(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM, server: server,
                                    applicationProtocol: applicationProtocol)
    }

    /// Accepts any certificate: the proofs decide.
    static func acceptAny(_ chain: [NIOSSLCertificate], _ promise: EventLoopPromise<NIOSSLVerificationResult>) {
        promise.succeed(.certificateVerified)
    }

    /// TLS → frames → handshake signal → first frame, set up before the channel is active.
    static func configure(_ channel: any Channel, tls: NIOSSLHandler) throws {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(tls)
        try operations.addHandler(FrameDecoder(maximumFrameLength: maximumFrameLength))
        try operations.addHandler(HandshakeDone(promise: channel.eventLoop.makePromise()))
        try operations.addHandler(FirstFrame(promise: channel.eventLoop.makePromise()))
    }

    /// The handlers ``configure(_:tls:)`` added, looked up while they are there.
    static func handlers(of channel: any Channel) async throws -> (handshake: HandshakeDone, firstFrame: FirstFrame) {
        (try await channel.pipeline.handler(type: HandshakeDone.self).get(), try await channel.pipeline.handler(type: FirstFrame.self).get())
    }

    /// Returns once the TLS handshake on `channel` has completed.
    static func handshakeCompleted(_ signal: HandshakeDone, on channel: any Channel) async throws {
        let timer = channel.eventLoop.scheduleTask(in: JoinFrames.timeout) { signal.promise.fail(JoinError("the TLS handshake did not finish")) }
        defer { timer.cancel() }
        try await signal.promise.futureResult.get()
    }

    /// The DER of the certificate the other side presented.
    static func peerCertificate(of channel: any Channel) async throws -> [UInt8] {
        let certificate = try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.nioSSL_peerCertificate()
        }.get()
        guard let certificate else { throw JoinError("the other side presented no certificate") }
        return try certificate.toDERBytes()
    }
}
