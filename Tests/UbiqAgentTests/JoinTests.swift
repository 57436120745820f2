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
        let relay = try await JoinListener.open(identity: relayIdentity, host: "127.0.0.1", logger: Logger(label: "relay")) { attempt in
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
