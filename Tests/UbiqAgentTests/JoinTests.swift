import Foundation
import Logging
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqIdentity
@_spi(Testing) import UbiqTransport
import UbiqTestSupport

/// Joining a workstation with a one-time code instead of a bundle file.
@Suite(.serialized) struct JoinTests {
    private func invite(_ agent: AgentProcess) async throws -> (code: String, port: Int) {
        let answer = try JSONValue(parsing: try await AgentProcess.cli(["device", "invite", "--json", "--socket", agent.socket]))
        return (try #require(answer["code"]?.stringValue), Int(try #require(answer["port"]?.integerValue)))
    }

    private func join(_ agent: AgentProcess, code: String, port: Int) async throws -> String {
        try await AgentProcess.cli(["account", "join", "--code", code, "--peer", "127.0.0.1:\(port)", "--state", agent.state, "--name", agent.name])
    }

    @Test func aWorkstationJoinsWithACodeOnceAndThreeWrongCodesBurnIt() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let token = try #require(try await a.status().identityToken)

        let (code, port) = try await invite(a)
        let beta = try AgentProcess(name: "beta", in: cluster.directory, peers: [a.port])
        defer { beta.stop() }
        let joined = try await join(beta, code: code, port: port)
        #expect(joined.contains("Joined the account") && joined.contains(token), "\(joined)")
        // One join per code.
        let gamma = try AgentProcess(name: "gamma", in: cluster.directory, peers: [a.port])
        await #expect(throws: (any Error).self) { try await join(gamma, code: code, port: port) }
        #expect(!FileManager.default.fileExists(atPath: gamma.state + "/account/ca-key.pem"))

        try await beta.startAndWait()
        try a.write("Documents/welcome.txt", "joined with a code")
        try await waitUntil("alpha's file on the new workstation") { beta.read("Documents/welcome.txt") == "joined with a code" }

        // Three wrong codes burn the invitation: the right one fails after them.
        let (burned, burnedPort) = try await invite(a)
        for last in ["F", "G", "H"] {
            await #expect(throws: (any Error).self) { try await join(gamma, code: "ABCDEF-ABCDEF-ABCDEF-ABCDE" + last, port: burnedPort) }
        }
        await #expect(throws: (any Error).self) { try await join(gamma, code: burned, port: burnedPort) }
        #expect(!FileManager.default.fileExists(atPath: gamma.state + "/account/ca-key.pem"))
        #expect(a.logText().contains("a join attempt with a wrong code"))
    }

    /// Joined without mDNS and without `--peer` on its own agent: the inviter lists the new
    /// device as soon as the join is done, and the new agent finds the inviter at the address
    /// the join reached, remembered in its state folder. The invitation listens on the join
    /// port, the same each time, and says where.
    @Test func aJoinedWorkstationIsListedAtOnceAndFindsItsInviterByItself() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        a.joinPort = try freeLoopbackPort()
        try await cluster.start()
        let printed = try await AgentProcess.cli(["device", "invite", "--socket", a.socket])
        let (code, port) = try await invite(a)
        #expect(port == a.joinPort, "the invitation does not listen on the join port")
        #expect(printed.contains(":\(a.joinPort)") && !printed.contains("THIS-HOST") && printed.contains("start ubiqd there"), "\(printed)")

        let beta = try AgentProcess(name: "beta", in: cluster.directory)
        defer { beta.stop() }
        let joined = try await join(beta, code: code, port: port)
        #expect(joined.contains("127.0.0.1:\(a.port)"), "\(joined)")
        let listed = try await a.withClient { try await $0.devices() }
        let betaID = try #require(try IdentityStore(state: StateDirectory(path: beta.state)).load()?.deviceID)
        let entry = try #require(listed.first { $0.id == betaID }, "the inviter does not list the new device")
        #expect(entry.name == "beta" && !entry.connected)

        try await beta.startAndWait()
        try a.write("Documents/found.txt", "found without mDNS")
        try await waitUntil("alpha's file on the new workstation") { beta.read("Documents/found.txt") == "found without mDNS" }
    }

    /// A join given the member's sync port instead of its join port is told so, in words,
    /// not in the TLS library's; the member logs no TLS dump either.
    @Test func aJoinSentToTheSyncPortSaysWhichPortToUse() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let (code, _) = try await invite(a)
        let beta = try AgentProcess(name: "beta", in: cluster.directory)
        let output = try await Self.join(code, at: "127.0.0.1:\(a.port)", state: beta.state)
        #expect(output.status != 0)
        #expect(output.errors.contains("sync port, not its join port"), "\(output.errors)")
        #expect(!output.errors.contains("SSL") && !output.errors.contains("NIO"), "\(output.errors)")
        try await waitUntil("the member to log the refused connection") { a.logText().contains("Refused a peer connection") }
        #expect(!a.logText().contains("OPENSSL_internal"), "the member logs BoringSSL's text")

        let closed = try freeLoopbackPort()
        let unreachable = try await Self.join(code, at: "127.0.0.1:\(closed)", state: beta.state)
        #expect(unreachable.errors.contains("nothing listens at 127.0.0.1:\(closed)"), "\(unreachable.errors)")
        let unknown = try await Self.join(code, at: "no-such-host.invalid:4000", state: beta.state)
        #expect(unknown.errors.contains("not known here"), "\(unknown.errors)")
        #expect(!FileManager.default.fileExists(atPath: beta.state + "/account/ca-key.pem"))
    }

    private static func join(_ code: String, at peer: String, state: String) async throws -> ProgramOutput {
        try await AgentProcess.run("ubiq", ["account", "join", "--code", code, "--peer", peer, "--state", state], killAfter: .seconds(60))
    }

    /// An invitation open when its account's syncing stops closes with it, its listener
    /// too: at a sign-out, and at a rotation's restart (a new invitation is needed then).
    @Test func anInvitationClosesWhenItsAccountStops() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let beta = try AgentProcess(name: "beta", in: cluster.directory, peers: [a.port])
        defer { beta.stop() }

        let (rotated, rotatedPort) = try await invite(a)
        _ = try await a.withClient { try await $0.rotateAccount() }
        try await waitUntil("the invitation to close with the restart") { a.logText().contains("invitation closed") }
        #expect(!Self.isListening(rotatedPort))
        await #expect(throws: (any Error).self) { try await join(beta, code: rotated, port: rotatedPort) }

        let (code, port) = try await invite(a)
        #expect(Self.isListening(port))
        _ = try await AgentProcess.cli(["--socket", a.socket, "account", "leave", "--keep"])
        #expect(!Self.isListening(port), "the join listener outlived the sign-out")
        await #expect(throws: (any Error).self) { try await join(beta, code: code, port: port) }
        #expect(!FileManager.default.fileExists(atPath: beta.state + "/account/ca-key.pem"))
    }

    static func isListening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A relay in the middle that terminates TLS on both sides (its own certificate to each)
    /// and passes the joiner's proof on: the inviter refuses it, the relay learns nothing,
    /// and the joiner is told the other side does not know the code.
    @Test func aRelayThatTerminatesTLSCannotCompleteAJoin() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let (code, port) = try await invite(a)
        let handedOver = Mutex<[String]>([])
        let relayIdentity = try Account.create().issueDevice(name: "relay")
        let relay = try await JoinListener.open(identity: relayIdentity, host: "127.0.0.1", port: 0, logger: Logger(label: "relay")) { attempt in
            do {
                let answer = try await JoinClient.forward(proof: attempt.proof, name: attempt.name, host: "127.0.0.1", port: port)
                if let bundle = answer.bundle { handedOver.withLock { $0.append(bundle) } }
                return answer
            } catch {
                return JoinAnswer(error: "\(error)")
            }
        }
        let mallory = try AgentProcess(name: "mallory-victim", in: cluster.directory)
        do {
            _ = try await join(mallory, code: code, port: relay.port)
            Issue.record("a join through a relay that terminates TLS completed")
        } catch {
            #expect("\(error)".contains("wrong code"), "\(error)")
        }
        await relay.close()
        #expect(handedOver.withLock { $0.isEmpty })
        #expect(!FileManager.default.fileExists(atPath: mallory.state + "/account/ca-key.pem"))
        // The code was not burned by one relayed proof: the real joiner still joins directly.
        let beta = try AgentProcess(name: "beta", in: cluster.directory)
        await #expect(try join(beta, code: code, port: port).contains("Joined the account"))
    }
}
