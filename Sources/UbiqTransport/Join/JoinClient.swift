import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import UbiqIdentity

/// The joining side: connects to a member's join listener, proves the code bound to this
/// connection, checks the member's proof, and returns the account bundle it handed over.
public enum JoinClient {
    public static func join(host: String, port: Int, code: JoinCode, name: String) async throws -> JoinResult {
        let credentials = try JoinCredentials.generate()
        let (reply, binding) = try await exchange(host: host, port: port, credentials: credentials) { binding in
            JoinRequest(proof: Data(code.proof(.joiner, binding: binding)), name: name)
        }
        if let error = reply.error { throw JoinError("the inviting device refused: \(error)") }
        guard let proof = reply.proof, code.isValid(Array(proof), .inviter, binding: binding), let bundle = reply.bundle else {
            throw JoinError("the other side does not know the code: it is not the inviting device (or something sits between); nothing was taken from it")
        }
        let sync = (reply.syncPorts ?? []).filter { (1...65535).contains($0) }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return JoinResult(bundle: bundle, deviceKeyPEM: credentials.privateKeyPEM,
                          inviterAddresses: Array(Set(sync)).sorted().map { "\(bracketed):\($0)" })
    }

    /// Passes on a proof made for another connection, as a relay in the middle would; for
    /// the tests that show it gets nothing.
    @_spi(Testing)
    public static func forward(proof: [UInt8], name: String, host: String, port: Int) async throws -> JoinAnswer {
        try await exchange(host: host, port: port, credentials: try JoinCredentials.generate()) { _ in
            JoinRequest(proof: Data(proof), name: name)
        }.answer
    }

    /// Connects with `credentials`, sends the request made for this connection's binding,
    /// and reads the answer.
    private static func exchange(host: String, port: Int, credentials: JoinCredentials,
                                 request: ([UInt8]) -> JoinRequest) async throws -> (answer: JoinAnswer, binding: [UInt8]) {
        let context = try NIOSSLContext(configuration: JoinTLS.configuration(
            certificatePEM: credentials.certificatePEM, privateKeyPEM: credentials.privateKeyPEM, server: false))
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try JoinTLS.configure(channel, tls: NIOSSLClientHandler(context: context, serverHostname: nil,
                                                                                 customVerificationCallback: JoinTLS.acceptAny))
                    }
                }
                .connect(host: host, port: port)
                .get()
        } catch {
            let reason = ConnectionFailure.reason(error, address: "\(host):\(port)") ?? "\(error)"
            throw JoinError("could not reach the inviting device: \(reason); is the invitation still open (`ubiq device invite` on the member)?",
                            unreachable: true)
        }
        defer { channel.close(promise: nil) }
        do {
            let handlers = try await JoinTLS.handlers(of: channel)
            try await JoinTLS.handshakeCompleted(handlers.handshake, on: channel)
            let binding = JoinCode.binding(inviterCertificate: try await JoinTLS.peerCertificate(of: channel),
                                           joinerCertificate: credentials.certificateDER)
            do {
                try await JoinFrames.send(request(binding), on: channel)
            } catch {
                // In TLS 1.3 the handshake ends on this side before the other has judged this
                // certificate: a refusal arrives as an alert, or as the connection closing.
                _ = try await JoinFrames.first(from: handlers.firstFrame, on: channel)
                throw error
            }
            let answer = try JSONDecoder().decode(JoinAnswer.self, from: try await JoinFrames.first(from: handlers.firstFrame, on: channel))
            return (answer, binding)
        } catch let error as JoinError where error.closedWithoutAnswer {
            throw Self.closedWithoutAnswer(host: host, port: port)
        } catch is ChannelPipelineError {
            // Closed so soon that its handlers were gone when looked up.
            throw Self.closedWithoutAnswer(host: host, port: port)
        } catch let error as JoinError {
            throw error
        } catch {
            throw JoinError(Self.failed(error, address: "\(host):\(port)"))
        }
    }

    static func closedWithoutAnswer(host: String, port: Int) -> JoinError {
        JoinError("\(host):\(port) closed the connection without an answer, as a ubiq agent's sync port does: it is its sync port, not its join port (or no invitation is open there); give --peer the address `ubiq device invite` printed")
    }

    /// Why a connection that was made did not join: above all, a join sent to a member's sync
    /// port, whose TLS asks for a certificate of the account, which a joiner has not yet got.
    static func failed(_ error: any Error, address: String) -> String {
        switch ConnectionFailure(error, address: address) {
        case .certificateRefused?:
            "\(address) is a ubiq agent's sync port, not its join port: give --peer the address `ubiq device invite` printed"
        case let failure?: "the join did not complete: \(failure)"
        case nil: "the join did not complete: \(error)"
        }
    }
}
