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

    /// A hand-made client of the account, its TLS settings changed by `change`, is closed by
    /// the listener, which hands no peer to the agent; a proper device connects after it.
    private func expectRefused(_ change: (inout TLSConfiguration) -> Void) async throws {
        let account = try Account.create()
        let listener = try await Fixtures.transport(account.issueDevice(name: "desk")).listen(host: "127.0.0.1", port: 0)
        var configuration = try PeerTransport.tlsConfiguration(account.issueDevice(name: "laptop"), server: false)
        change(&configuration)
        let client = try await rawClient(port: listener.localPort, tls: NIOSSLContext(configuration: configuration))
        try await within { try await client.closeFuture.get() }
        let laptop = try account.issueDevice(name: "laptop")
        let dialled = try await Fixtures.transport(laptop).connect(host: "127.0.0.1", port: listener.localPort)
        #expect(try await listener.next().remoteDeviceID == laptop.deviceID)
        await dialled.close()
        await listener.close()
    }

    /// Refused although the certificate is good.
    @Test func clientWithoutTheUbiqProtocolIsRefused() async throws {
        try await expectRefused { $0.applicationProtocols = ["other/1"] }
    }

    /// A client that trusts the account but shows no certificate of its own gets nothing.
    @Test func clientWithoutACertificateIsRefused() async throws {
        try await expectRefused {
            $0.certificateChain = []
            $0.privateKey = nil
        }
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
        do {
            try await client.writeAndFlush(garbage)
        } catch ChannelError.ioOnClosedChannel {
            // On a loaded machine the listener's handshake timeout can close the channel first.
        }
        try await within { try await client.closeFuture.get() }
        await listener.close()
    }
}
