import Testing
@_spi(Testing) import UbiqIdentity
import UbiqTransport

/// Dialling a peer at several addresses: the ones that do not work cost at most one attempt
/// delay each, never a connect timeout (10 s).
struct HappyEyeballsTests {
    @Test func aSilentFirstAddressCostsOneAttemptDelay() async throws {
        let account = try Account.create()
        let desk = try account.issueDevice(name: "desk")
        let listener = try await Fixtures.transport(desk).listen(host: "127.0.0.1", port: 0)
        let silent = try SilentListener(ipv6LoopbackPort: listener.localPort)
        let laptop = try Fixtures.transport(account.issueDevice(name: "laptop"))

        // IPv6 goes first: [::1] drops the SYN, so 127.0.0.1 is tried 250 ms later.
        let fastest = try await Self.fastest {
            let connection = try await laptop.connect(hosts: ["127.0.0.1", "::1"], port: silent.port, expecting: desk.deviceID)
            #expect(connection.remoteAddress == "127.0.0.1:\(listener.localPort)")
            await connection.close()
        }
        print("first address silent: reached the second in \(fastest)")
        #expect(fastest >= .milliseconds(250))
        #expect(fastest < .seconds(1))
        await listener.close()
    }

    @Test func aRefusedFirstAddressStartsTheNextAtOnce() async throws {
        let account = try Account.create()
        let desk = try account.issueDevice(name: "desk")
        // Listening on IPv4 only: [::1] on the same port refuses.
        let listener = try await Fixtures.transport(desk).listen(host: "127.0.0.1", port: 0)
        let laptop = try Fixtures.transport(account.issueDevice(name: "laptop"))

        let fastest = try await Self.fastest {
            let connection = try await laptop.connect(hosts: ["::1", "127.0.0.1"], port: listener.localPort,
                                                      attemptDelay: .seconds(5))
            #expect(connection.remoteAddress == "127.0.0.1:\(listener.localPort)")
            await connection.close()
        }
        #expect(fastest < .seconds(1))
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

    /// The shortest of three timed runs of `body`, each of which must finish well within the
    /// connect timeout: the whole test suite runs beside this on two cores, and one run may
    /// wait for a thread for seconds.
    static func fastest(_ body: () async throws -> Void) async throws -> Duration {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<3 {
            let started = clock.now
            try await body()
            times.append(clock.now - started)
            #expect(times.last! < .seconds(5), "a run took \(times.last!), as long as a connect timeout")
        }
        return times.min()!
    }
}
