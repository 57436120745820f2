import Testing
import UbiqModel
import UbiqWire

@Suite struct HandshakeTests {
    let device = DeviceID("PEER")

    func hello(_ versions: [UInt32], device: String = "PEER", containers: [String]) -> Ubiq_Wire_Hello {
        var hello = Ubiq_Wire_Hello()
        hello.protocolVersions = versions
        hello.deviceID = device
        hello.containers = containers.map {
            var offer = Ubiq_Wire_ContainerOffer()
            offer.containerID = $0
            offer.indexID = 5
            return offer
        }
        return hello
    }

    @Test func agreesOnTheHighestCommonVersionAndSharedContainers() throws {
        let agreement = try Handshake.agree(
            ours: hello([1, 2], device: "ME", containers: ["T.a.b", "T.c.d"]),
            theirs: hello([2, 3], containers: ["T.c.d", "T.e.f", "not-an-id"]), authenticatedDevice: device)
        #expect(agreement.version == 2)
        #expect(Set(agreement.containers.keys) == [try ContainerID("T.c.d")])
    }

    /// A peer of the first protocol still syncs with this build, without chunk groups.
    @Test func speaksTheFirstVersionWithAnOlderPeer() throws {
        let agreement = try Handshake.agree(ours: hello(Handshake.supportedVersions, device: "ME", containers: []),
                                            theirs: hello([1], containers: []), authenticatedDevice: device)
        #expect(agreement.version == 1)
    }

    @Test func refusesAPeerWithNoCommonVersion() {
        #expect {
            try Handshake.agree(ours: hello([1], device: "ME", containers: []), theirs: hello([2], containers: []),
                                authenticatedDevice: device)
        } throws: { ($0 as? WireError)?.code == .noCommonVersion }
    }

    @Test func refusesAHelloThatClaimsAnotherDevice() {
        #expect {
            try Handshake.agree(ours: hello([1], device: "ME", containers: []), theirs: hello([1], device: "SOMEONE", containers: []),
                                authenticatedDevice: device)
        } throws: { ($0 as? WireError)?.code == .wrongDevice }
    }

    @Test func envelopesRoundTripAndGarbageIsRefused() throws {
        var ping = Ubiq_Wire_Envelope(.ping(Ubiq_Wire_Ping()))
        ping = try Ubiq_Wire_Envelope(payload: ping.payload())
        #expect(ping.message == .ping(Ubiq_Wire_Ping()))
        #expect(throws: WireError.self) { try Ubiq_Wire_Envelope(payload: [0xFF, 0xFF, 0xFF, 0x01]) }
        #expect(throws: WireError.self) { try Ubiq_Wire_Envelope(payload: []) }
    }
}
