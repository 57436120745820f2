import Testing
@_spi(Testing) import UbiqIdentity
import UbiqTransport

/// The default listen address `[::]` takes IPv4 and IPv6 peers on one socket.
struct DualStackTests {
    @Test func aDualStackListenerAcceptsIPv4AndIPv6Loopback() async throws {
        let account = try Account.create()
        let desk = try account.issueDevice(name: "desk")
        let laptop = try Fixtures.transport(account.issueDevice(name: "laptop"))
        let listener = try await Fixtures.transport(desk).listen(host: "::", port: 0)

        let overIPv4 = try await laptop.connect(host: "127.0.0.1", port: listener.localPort)
        let acceptedIPv4 = try await listener.next()
        let overIPv6 = try await laptop.connect(host: "::1", port: listener.localPort)
        let acceptedIPv6 = try await listener.next()

        #expect(overIPv4.remoteDeviceID == desk.deviceID)
        #expect(overIPv6.remoteDeviceID == desk.deviceID)
        #expect(overIPv6.remoteAddress == "[::1]:\(listener.localPort)")
        // The kernel hands the IPv4 peer over as ::ffff:127.0.0.1; it is shown as what it is.
        #expect(acceptedIPv4.remoteAddress.hasPrefix("127.0.0.1:"))
        #expect(acceptedIPv6.remoteAddress.hasPrefix("[::1]:"))

        try await overIPv4.send([4])
        try await overIPv6.send([6])
        #expect(try await acceptedIPv4.receive(1) == [[4]])
        #expect(try await acceptedIPv6.receive(1) == [[6]])
        for connection in [overIPv4, overIPv6, acceptedIPv4, acceptedIPv6] { await connection.close() }
        await listener.close()
    }

    @Test func anAddressThisHostLacksIsAddressUnavailable() async throws {
        let desk = try Fixtures.transport(Account.create().issueDevice(name: "desk"))
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): on no interface here.
        await expectTransportError(.addressUnavailable) {
            _ = try await desk.listen(host: "192.0.2.1", port: 0)
        }
    }
}
