import Logging
import NIOCore
import NIOPosix
import NIOSSL
import UbiqIdentity
import UbiqWire

/// Makes and accepts connections to other devices of the same account (DESIGN.md §4): TCP,
/// TLS 1.3 only, both sides present a certificate that must chain to the account CA and
/// nothing else, ALPN `ubiq/1` required, then length-prefixed frames.
public struct PeerTransport: Sendable {
    /// The ALPN protocol name of the peer protocol.
    public static let applicationProtocol = "ubiq/1"

    public let identity: DeviceIdentity
    /// Frames longer than this end the connection (16 MiB unless told otherwise).
    public let maximumFrameLength: Int
    /// How long a new connection may take to authenticate before it is dropped.
    public let handshakeTimeout: Duration

    let logger: Logger
    private let serverContext: NIOSSLContext
    private let clientContext: NIOSSLContext
    private var group: MultiThreadedEventLoopGroup { .singleton }

    public init(
        identity: DeviceIdentity,
        logger: Logger,
        maximumFrameLength: Int = FrameCodec.defaultMaximumFrameLength,
        handshakeTimeout: Duration = .seconds(10)
    ) throws {
        self.identity = identity
        self.logger = logger
        self.maximumFrameLength = maximumFrameLength
        self.handshakeTimeout = handshakeTimeout
        do {
            serverContext = try NIOSSLContext(configuration: Self.tlsConfiguration(identity, server: true))
            clientContext = try NIOSSLContext(configuration: Self.tlsConfiguration(identity, server: false))
        } catch {
            throw PeerTransportError(.invalidIdentity, "The device identity cannot be used for TLS (\(error)); run `ubiq account show` to check it.")
        }
    }

    static func tlsConfiguration(_ identity: DeviceIdentity, server: Bool) throws -> TLSConfiguration {
        let certificate = try NIOSSLCertificate(bytes: Array(identity.certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)
        let authority = try NIOSSLCertificate(bytes: Array(identity.caCertificatePEM.utf8), format: .pem)
        var configuration = server
            ? TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
            : TLSConfiguration.makeClientConfiguration()
        configuration.certificateChain = [.certificate(certificate)]
        configuration.privateKey = .privateKey(key)
        configuration.minimumTLSVersion = .tlsv13
        configuration.maximumTLSVersion = .tlsv13
        configuration.certificateVerification = .noHostnameVerification
        configuration.trustRoots = .certificates([authority])
        configuration.additionalTrustRoots = []
        configuration.applicationProtocols = [applicationProtocol]
        return configuration
    }

    /// Listens on `host:port` (port 0 picks a free one; see `PeerListener.localPort`).
    public func listen(host: String, port: Int) async throws -> PeerListener {
        let serverContext = self.serverContext
        let maximumFrameLength = self.maximumFrameLength
        let timeout = TimeAmount(handshakeTimeout)
        let server: NIOAsyncChannel<PeerPipeline.Pending, Never>
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try PeerPipeline.configure(
                            channel,
                            tlsHandler: NIOSSLServerHandler(context: serverContext),
                            maximumFrameLength: maximumFrameLength,
                            handshakeTimeout: timeout
                        )
                    }
                }
        } catch {
            throw PeerTransportError(.bindFailed, "Could not listen on \(host):\(port): \(error). Is another agent using the port?")
        }
        var logger = self.logger
        logger[metadataKey: "listen.address"] = "\(PeerPipeline.describe(server.channel.localAddress))"
        return PeerListener(server: server, maximumFrameLength: maximumFrameLength, logger: logger)
    }

    /// Connects to the device listening at `host:port`; returns once both sides have accepted
    /// each other. Throws `PeerTransportError` with `unreachable` or `handshakeRefused`.
    public func connect(host: String, port: Int) async throws -> PeerConnection {
        let clientContext = self.clientContext
        let maximumFrameLength = self.maximumFrameLength
        let timeout = TimeAmount(handshakeTimeout)
        let pending: PeerPipeline.Pending
        do {
            pending = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try PeerPipeline.configure(
                            channel,
                            tlsHandler: NIOSSLClientHandler(context: clientContext, serverHostname: nil),
                            maximumFrameLength: maximumFrameLength,
                            handshakeTimeout: timeout
                        )
                    }
                }
        } catch {
            throw PeerTransportError(.unreachable, "Could not reach a peer at \(host):\(port): \(error).")
        }
        do {
            let deviceID = try await pending.authenticated.get()
            return await PeerConnectionScope.detached(pending, remoteDeviceID: deviceID, maximumFrameLength: maximumFrameLength)
        } catch {
            try? await pending.channel.executeThenClose { _, _ in }
            logger.debug(
                "Peer handshake failed",
                metadata: ["peer.address": "\(pending.remoteAddress)", "reason": "\(error)"]
            )
            throw PeerTransportError(.handshakeRefused, "The peer at \(host):\(port) and this device did not accept each other: \(error).")
        }
    }
}
