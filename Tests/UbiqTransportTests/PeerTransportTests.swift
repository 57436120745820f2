import Foundation
import Testing
@_spi(Testing) import UbiqIdentity
import UbiqModel
import UbiqTransport
import UbiqWire

@Suite struct PeerTransportTests {
    @Test func devicesOfOneAccountExchangeFramesBothWays() async throws {
        let account = try Account.create()
        let desk = try account.issueDevice(name: "desk")
        let laptop = try account.issueDevice(name: "laptop")
        let listener = try await Fixtures.transport(desk).listen(host: "127.0.0.1", port: 0)
        #expect(listener.localPort > 0)

        let dialled = try await Fixtures.transport(laptop).connect(host: "127.0.0.1", port: listener.localPort)
        let accepted = try await listener.next()
        #expect(dialled.remoteDeviceID == desk.deviceID)
        #expect(accepted.remoteDeviceID == laptop.deviceID)
        #expect(dialled.remoteAddress == "127.0.0.1:\(listener.localPort)")
        #expect(accepted.remoteAddress.hasPrefix("127.0.0.1:"))

        let toDesk: [[UInt8]] = [[1, 2, 3], [], Array(repeating: 0x5A, count: 200_000)]
        let toLaptop: [[UInt8]] = [[9], Array("hello".utf8)]
        for frame in toDesk { try await dialled.send(frame) }
        for frame in toLaptop { try await accepted.send(frame) }
        #expect(try await accepted.receive(toDesk.count) == toDesk)
        #expect(try await dialled.receive(toLaptop.count) == toLaptop)

        let deskBytes = toDesk.reduce(0) { $0 + 4 + $1.count }
        let laptopBytes = toLaptop.reduce(0) { $0 + 4 + $1.count }
        #expect(dialled.bytesSent == deskBytes)
        #expect(accepted.bytesReceived == deskBytes)
        #expect(accepted.bytesSent == laptopBytes)
        #expect(dialled.bytesReceived == laptopBytes)

        await dialled.close()
        await accepted.close()
        await listener.close()
    }

    @Test func closingEndsThePeersFrames() async throws {
        let account = try Account.create()
        let listener = try await Fixtures.transport(account.issueDevice(name: "desk")).listen(host: "127.0.0.1", port: 0)
        let dialled = try await Fixtures.transport(account.issueDevice(name: "laptop")).connect(host: "127.0.0.1", port: listener.localPort)
        let accepted = try await listener.next()
        try await dialled.send([7])
        await dialled.close()
        #expect(try await accepted.receive(2) == [[7]])
        await expectTransportError(.connectionClosed) {
            try await dialled.send([8])
        }
        await listener.close()
    }

    @Test func deviceOfAnotherAccountIsRefusedAsClient() async throws {
        let account = try Account.create()
        let listener = try await Fixtures.transport(account.issueDevice(name: "desk")).listen(host: "127.0.0.1", port: 0)
        let stranger = try Account.create().issueDevice(name: "stranger")

        await expectTransportError(.handshakeRefused) {
            _ = try await Fixtures.transport(stranger).connect(host: "127.0.0.1", port: listener.localPort)
        }
        // The refused attempt never surfaces: the first connection the listener yields is the
        // legitimate one made after it.
        let laptop = try account.issueDevice(name: "laptop")
        let dialled = try await Fixtures.transport(laptop).connect(host: "127.0.0.1", port: listener.localPort)
        #expect(try await listener.next().remoteDeviceID == laptop.deviceID)
        await dialled.close()
        await listener.close()
    }

    @Test func deviceOfAnotherAccountIsRefusedAsServer() async throws {
        let strangers = try Account.create()
        let listener = try await Fixtures.transport(strangers.issueDevice(name: "stranger")).listen(host: "127.0.0.1", port: 0)
        let desk = try Account.create().issueDevice(name: "desk")

        await expectTransportError(.handshakeRefused) {
            _ = try await Fixtures.transport(desk).connect(host: "127.0.0.1", port: listener.localPort)
        }
        let friend = try strangers.issueDevice(name: "friend")
        let dialled = try await Fixtures.transport(friend).connect(host: "127.0.0.1", port: listener.localPort)
        #expect(try await listener.next().remoteDeviceID == friend.deviceID)
        await dialled.close()
        await listener.close()
    }

    @Test func selfSignedCertificateIsRefusedBothWays() async throws {
        let account = try Account.create()
        let rogue = try Account.selfSignedDevice(name: "rogue", trusting: account)
        let desk = try account.issueDevice(name: "desk")

        let listener = try await Fixtures.transport(desk).listen(host: "127.0.0.1", port: 0)
        await expectTransportError(.handshakeRefused) {
            _ = try await Fixtures.transport(rogue).connect(host: "127.0.0.1", port: listener.localPort)
        }
        let laptop = try account.issueDevice(name: "laptop")
        let dialled = try await Fixtures.transport(laptop).connect(host: "127.0.0.1", port: listener.localPort)
        #expect(try await listener.next().remoteDeviceID == laptop.deviceID)
        await dialled.close()
        await listener.close()

        let rogueListener = try await Fixtures.transport(rogue).listen(host: "127.0.0.1", port: 0)
        await expectTransportError(.handshakeRefused) {
            _ = try await Fixtures.transport(desk).connect(host: "127.0.0.1", port: rogueListener.localPort)
        }
        await rogueListener.close()
    }

    /// A device removed from the account is refused both ways although its certificate
    /// chains to the account; the others still connect.
    @Test func removedDeviceIsRefusedBothWays() async throws {
        let account = try Account.create()
        let (desk, lost, laptop) = (try account.issueDevice(name: "desk"), try account.issueDevice(name: "lost"),
                                    try account.issueDevice(name: "laptop"))
        let refusing: @Sendable (DeviceID, AccountTrust.Standing) -> Bool = { [id = lost.deviceID] device, _ in device == id }
        let deskTransport = try PeerTransport(identity: desk, logger: Fixtures.logger, refusing: refusing)
        let listener = try await deskTransport.listen(host: "127.0.0.1", port: 0)
        await expectTransportError(.handshakeRefused) {
            _ = try await Fixtures.transport(lost).connect(host: "127.0.0.1", port: listener.localPort)
        }
        let dialled = try await Fixtures.transport(laptop).connect(host: "127.0.0.1", port: listener.localPort)
        #expect(try await listener.next().remoteDeviceID == laptop.deviceID)
        await dialled.close()
        await listener.close()

        let lostListener = try await Fixtures.transport(lost).listen(host: "127.0.0.1", port: 0)
        await expectTransportError(.handshakeRefused) {
            _ = try await deskTransport.connect(host: "127.0.0.1", port: lostListener.localPort)
        }
        await lostListener.close()
    }

    /// A device certificate of the account that has expired is refused both ways.
    @Test func expiredCertificateIsRefusedBothWays() async throws {
        let account = try Account.create()
        let expired = try account.issueDevice(name: "old", now: Date(timeIntervalSinceNow: -21 * 365.25 * 24 * 3600))
        let desk = try account.issueDevice(name: "desk")
        let listener = try await Fixtures.transport(desk).listen(host: "127.0.0.1", port: 0)
        await expectTransportError(.handshakeRefused) {
            _ = try await Fixtures.transport(expired).connect(host: "127.0.0.1", port: listener.localPort)
        }
        await listener.close()
        let expiredListener = try await Fixtures.transport(expired).listen(host: "127.0.0.1", port: 0)
        await expectTransportError(.handshakeRefused) {
            _ = try await Fixtures.transport(desk).connect(host: "127.0.0.1", port: expiredListener.localPort)
        }
        await expiredListener.close()
    }

    @Test func overLimitFrameEndsTheConnectionWithAnError() async throws {
        let account = try Account.create()
        let receiver = try Fixtures.transport(account.issueDevice(name: "desk"), maximumFrameLength: 1024)
        let listener = try await receiver.listen(host: "127.0.0.1", port: 0)
        let dialled = try await Fixtures.transport(account.issueDevice(name: "laptop")).connect(host: "127.0.0.1", port: listener.localPort)
        let accepted = try await listener.next()

        // The receiver's own limit also applies to what it sends.
        await #expect(throws: FrameTooLarge(length: 1025, limit: 1024)) {
            try await accepted.send(Array(repeating: 0, count: 1025))
        }

        try await dialled.send([1, 2, 3])
        try await dialled.send(Array(repeating: 1, count: 2000))
        let (received, failure) = try await within { () -> ([[UInt8]], (any Error)?) in
            var received: [[UInt8]] = []
            do {
                for try await frame in accepted.frames { received.append(Array(frame.readableBytesView)) }
            } catch {
                return (received, error)
            }
            return (received, nil)
        }
        #expect(received == [[1, 2, 3]])
        #expect(failure as? FrameTooLarge == FrameTooLarge(length: 2000, limit: 1024))

        // The receiver closed the connection, so the sender's frames end too.
        _ = try await within {
            do {
                for try await _ in dialled.frames {}
            } catch {}
        }
        await listener.close()
    }

    @Test func unreachablePeerIsReported() async throws {
        let account = try Account.create()
        let listener = try await Fixtures.transport(account.issueDevice(name: "desk")).listen(host: "127.0.0.1", port: 0)
        let port = listener.localPort
        await listener.close()
        await expectTransportError(.unreachable) {
            _ = try await Fixtures.transport(account.issueDevice(name: "laptop")).connect(host: "127.0.0.1", port: port)
        }
        // The closed listener's sequence has ended.
        try await within {
            for await _ in listener.connections {}
        }
    }
}
