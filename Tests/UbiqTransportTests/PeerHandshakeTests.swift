import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Testing
import UbiqIdentity
@testable import UbiqTransport

/// Handshakes that break the rules from the side of a hand-made client.
@Suite struct PeerHandshakeTests {
    private func rawClient(port: Int, tls: NIOSSLContext?) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: nil))
                    }
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
    }

    @Test func clientWithoutTheUbiqProtocolIsRefused() async throws {
        let account = try Account.create()
        let listener = try await Fixtures.transport(account.issueDevice(name: "desk")).listen(host: "127.0.0.1", port: 0)
        var configuration = try PeerTransport.tlsConfiguration(account.issueDevice(name: "laptop"), server: false)
        configuration.applicationProtocols = ["other/1"]
        let client = try await rawClient(port: listener.localPort, tls: NIOSSLContext(configuration: configuration))

        // The listener closes the connection although the certificate is good.
        try await within { try await client.closeFuture.get() }
        let laptop = try account.issueDevice(name: "laptop")
        let dialled = try await Fixtures.transport(laptop).connect(host: "127.0.0.1", port: listener.localPort)
        #expect(try await listener.next().remoteDeviceID == laptop.deviceID)
        await dialled.close()
        await listener.close()
    }

    /// A client that trusts the account but shows no certificate of its own gets nothing:
    /// the listener closes the connection and hands no peer to the agent.
    @Test func clientWithoutACertificateIsRefused() async throws {
        let account = try Account.create()
        let listener = try await Fixtures.transport(account.issueDevice(name: "desk")).listen(host: "127.0.0.1", port: 0)
        var configuration = try PeerTransport.tlsConfiguration(account.issueDevice(name: "laptop"), server: false)
        configuration.certificateChain = []
        configuration.privateKey = nil
        let client = try await rawClient(port: listener.localPort, tls: NIOSSLContext(configuration: configuration))
        try await within { try await client.closeFuture.get() }
        let laptop = try account.issueDevice(name: "laptop")
        let dialled = try await Fixtures.transport(laptop).connect(host: "127.0.0.1", port: listener.localPort)
        #expect(try await listener.next().remoteDeviceID == laptop.deviceID)
        await dialled.close()
        await listener.close()
    }

    @Test func silentClientIsDroppedAfterTheHandshakeTimeout() async throws {
        let account = try Account.create()
        let transport = try PeerTransport(
            identity: account.issueDevice(name: "desk"),
            logger: Fixtures.logger,
            handshakeTimeout: .milliseconds(200)
        )
        let listener = try await transport.listen(host: "127.0.0.1", port: 0)
        let client = try await rawClient(port: listener.localPort, tls: nil)
        try await within { try await client.closeFuture.get() }
        await listener.close()
    }

    @Test func plainTextClientIsRefused() async throws {
        let account = try Account.create()
        let listener = try await Fixtures.transport(account.issueDevice(name: "desk")).listen(host: "127.0.0.1", port: 0)
        let client = try await rawClient(port: listener.localPort, tls: nil)
        var garbage = ByteBuffer()
        garbage.writeInteger(UInt32(3))
        garbage.writeBytes([1, 2, 3])
        try await client.writeAndFlush(garbage)
        try await within { try await client.closeFuture.get() }
        await listener.close()
    }
}
