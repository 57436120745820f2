#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import UbiqIdentity
import UbiqModel
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
    /// Devices refused although their certificate chains to the account (removed ones, and
    /// for a hand-over, ones a rotation left out), with the standing of their certificate.
    let refusing: @Sendable (DeviceID, AccountTrust.Standing) -> Bool
    /// Which peer certificates are the account's (``AccountTrust``).
    let trust: AccountTrust

    let logger: Logger
    private let serverContext: NIOSSLContext
    let clientContext: NIOSSLContext
    var group: MultiThreadedEventLoopGroup { .singleton }

    public init(
        identity: DeviceIdentity,
        logger: Logger,
        maximumFrameLength: Int = FrameCodec.defaultMaximumFrameLength,
        handshakeTimeout: Duration = .seconds(10),
        refusing: @escaping @Sendable (DeviceID, AccountTrust.Standing) -> Bool = { _, _ in false }
    ) throws {
        self.identity = identity
        self.refusing = refusing
        do { trust = try AccountTrust(identity: identity) } catch {
            throw PeerTransportError(.invalidIdentity, "The account CA cannot be read (\(error)); run `ubiq account show` to check it.")
        }
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
        let authority = try NIOSSLCertificate(bytes: Array(identity.caCertificatePEM.utf8), format: .pem)
        var configuration = try mutualTLS(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM,
                                          server: server, applicationProtocol: applicationProtocol)
        // After a rotation the cross-certificates follow the device certificate, for members
        // that missed it; the peer's chain is checked by `AccountTrust`, not by these roots.
        configuration.certificateChain += try identity.crossCertificatesDER.map { .certificate(try NIOSSLCertificate(bytes: $0, format: .der)) }
        configuration.trustRoots = .certificates([authority])
        configuration.additionalTrustRoots = []
        return configuration
    }

    /// TLS 1.3 only, this side's certificate shown, the other side's required, one ALPN
    /// protocol; what the other side's certificate is checked against is the caller's.
    static func mutualTLS(certificatePEM: String, privateKeyPEM: String, server: Bool, applicationProtocol: String) throws -> TLSConfiguration {
        let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        var configuration = server
            ? TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
            : TLSConfiguration.makeClientConfiguration()
        configuration.certificateChain = [.certificate(certificate)]
        configuration.privateKey = .privateKey(key)
        configuration.minimumTLSVersion = .tlsv13
        configuration.maximumTLSVersion = .tlsv13
        configuration.certificateVerification = .noHostnameVerification
        configuration.applicationProtocols = [applicationProtocol]
        return configuration
    }

    /// Listens on `host:port` (port 0 picks a free one; see `PeerListener.localPort`). An IPv6
    /// host listens dual-stack (IPV6_V6ONLY off): `::` takes IPv4 peers too, which arrive as
    /// v4-mapped addresses. Throws `addressUnavailable` where the host has no such address or
    /// no IPv6 at all, `bindFailed` for anything else (the port is taken).
    public func listen(host: String, port: Int) async throws -> PeerListener {
        let serverContext = self.serverContext
        let maximumFrameLength = self.maximumFrameLength
        let timeout = TimeAmount(handshakeTimeout)
        let refusing = self.refusing
        let trust = self.trust
        let logger = self.logger
        let endpoint = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
        if host.contains(":") {
            bootstrap = bootstrap.serverChannelOption(ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_v6only), value: 0)
        }
        let server: NIOAsyncChannel<PeerPipeline.Pending, Never>
        do {
            server = try await bootstrap.bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try PeerPipeline.configure(
                        channel,
                        tlsHandler: { NIOSSLServerHandler(context: serverContext, customVerificationCallback: $0) },
                        maximumFrameLength: maximumFrameLength,
                        handshakeTimeout: timeout,
                        trust: trust,
                        logger: logger,
                        refusing: refusing
                    )
                }
            }
        } catch let error as IOError where [EAFNOSUPPORT, EADDRNOTAVAIL].contains(error.errnoCode) {
            throw PeerTransportError(.addressUnavailable, "Could not listen on \(endpoint): this host has no such address (\(error)); listen on one it has, or on 0.0.0.0.")
        } catch {
            throw PeerTransportError(.bindFailed, "Could not listen on \(endpoint): \(error). Is another agent using the port?")
        }
        var listenerLogger = logger
        listenerLogger[metadataKey: "listen.address"] = "\(PeerPipeline.describe(server.channel.localAddress))"
        return PeerListener(server: server, maximumFrameLength: maximumFrameLength, logger: listenerLogger)
    }

    /// Connects to the device listening at `host:port`; returns once both sides have accepted
    /// each other. A host name with several addresses is dialled as `connect(hosts:port:)`
    /// does. Throws `PeerTransportError` with `unreachable` or `handshakeRefused`.
    public func connect(host: String, port: Int) async throws -> PeerConnection {
        try await connect(hosts: [host], port: port)
    }
}
