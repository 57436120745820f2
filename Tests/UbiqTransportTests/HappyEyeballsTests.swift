import Testing
@_spi(Testing) import UbiqIdentity
import UbiqTransport

/// Dialling a peer at several addresses: the ones that do not work cost at most one attempt
/// delay each, never a connect timeout.
struct HappyEyeballsTests {
    @Test func aSilentFirstAddressCostsOneAttemptDelay() async throws {
        let account = try Account.create()
        let desk = try account.issueDevice(name: "desk")
        let listener = try await Fixtures.transport(desk).listen(host: "127.0.0.1", port: 0)
        let silent = try SilentListener(ipv6LoopbackPort: listener.localPort)
        let laptop = try Fixtures.transport(account.issueDevice(name: "laptop"))

        let clock = ContinuousClock()
        let started = clock.now
        // IPv6 goes first: [::1] drops the SYN, so 127.0.0.1 is tried 250 ms later.
        let connection = try await laptop.connect(hosts: ["127.0.0.1", "::1"], port: silent.port, expecting: desk.deviceID)
        let elapsed = clock.now - started
        print("first address silent: reached the second in \(elapsed)")

        #expect(connection.remoteAddress == "127.0.0.1:\(listener.localPort)")
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .seconds(1))
        await connection.close()
        await listener.close()
    }

    @Test func aRefusedFirstAddressStartsTheNextAtOnce() async throws {
        let account = try Account.create()
        let desk = try account.issueDevice(name: "desk")
        // Listening on IPv4 only: [::1] on the same port refuses.
        let listener = try await Fixtures.transport(desk).listen(host: "127.0.0.1", port: 0)
        let laptop = try Fixtures.transport(account.issueDevice(name: "laptop"))

        let clock = ContinuousClock()
        let started = clock.now
        let connection = try await laptop.connect(hosts: ["::1", "127.0.0.1"], port: listener.localPort,
                                                  attemptDelay: .seconds(5))
        #expect(clock.now - started < .seconds(1))
        #expect(connection.remoteAddress == "127.0.0.1:\(listener.localPort)")
        await connection.close()
        await listener.close()
    }

    @Test func anAddressAnsweringAsAnotherDeviceIsPassedOver() async throws {
        let account = try Account.create()
        let desk = try account.issueDevice(name: "desk")
        let other = try account.issueDevice(name: "other")
        let otherListener = try await Fixtures.transport(other).listen(host: "::1", port: 0)
        let deskListener = try await Fixtures.transport(desk).listen(host: "127.0.0.1", port: otherListener.localPort)
        let laptop = try Fixtures.transport(account.issueDevice(name: "laptop"))

        let connection = try await laptop.connect(hosts: ["::1", "127.0.0.1"], port: deskListener.localPort,
                                                  expecting: desk.deviceID, attemptDelay: .seconds(5))
        #expect(connection.remoteDeviceID == desk.deviceID)
        await connection.close()

        await expectTransportError(.unexpectedDevice) {
            _ = try await laptop.connect(hosts: ["::1"], port: otherListener.localPort, expecting: desk.deviceID)
        }
        await otherListener.close()
        await deskListener.close()
    }

    @Test func noAddressAnsweringIsUnreachable() async throws {
        let account = try Account.create()
        let listener = try await Fixtures.transport(account.issueDevice(name: "desk")).listen(host: "127.0.0.1", port: 0)
        let port = listener.localPort
        await listener.close()
        let laptop = try Fixtures.transport(account.issueDevice(name: "laptop"))
        await expectTransportError(.unreachable) {
            _ = try await laptop.connect(hosts: ["::1", "127.0.0.1"], port: port)
        }
    }
}
