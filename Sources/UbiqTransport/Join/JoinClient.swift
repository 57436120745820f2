import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import UbiqIdentity

/// The joining side: connects to a member's join listener, proves the code bound to this
/// connection, checks the member's proof, and returns the account bundle it handed over.
public enum JoinClient {
    public static func join(host: String, port: Int, code: JoinCode, name: String) async throws -> String {
        let (reply, binding) = try await exchange(host: host, port: port) { binding in
            JoinRequest(proof: Data(code.proof(.joiner, binding: binding)), name: name)
        }
        if let error = reply.error { throw JoinError("the inviting device refused: \(error)") }
        guard let proof = reply.proof, code.isValid(Array(proof), .inviter, binding: binding), let bundle = reply.bundle else {
            throw JoinError("the other side does not know the code: it is not the inviting device (or something sits between); nothing was taken from it")
        }
        return bundle
    }

    /// Passes on a proof made for another connection, as a relay in the middle would; for
    /// the tests that show it gets nothing.
    @_spi(Testing)
    public static func forward(proof: [UInt8], name: String, host: String, port: Int) async throws -> JoinAnswer {
        try await exchange(host: host, port: port) { _ in JoinRequest(proof: Data(proof), name: name) }.answer
    }

    /// Connects with fresh credentials, sends the request made for this connection's
    /// binding, and reads the answer.
    private static func exchange(host: String, port: Int, request: ([UInt8]) -> JoinRequest) async throws -> (answer: JoinAnswer, binding: [UInt8]) {
        let credentials = try JoinCredentials.temporary()
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
            throw JoinError("could not reach the inviting device at \(host):\(port): \(error)", unreachable: true)
        }
        defer { channel.close(promise: nil) }
        do {
            let handlers = try await JoinTLS.handlers(of: channel)
            try await JoinTLS.handshakeCompleted(handlers.handshake, on: channel)
            let binding = JoinCode.binding(inviterCertificate: try await JoinTLS.peerCertificate(of: channel),
                                           joinerCertificate: credentials.certificateDER)
            try await JoinFrames.send(request(binding), on: channel)
            let answer = try JSONDecoder().decode(JoinAnswer.self, from: try await JoinFrames.first(from: handlers.firstFrame, on: channel))
            return (answer, binding)
        } catch let error as JoinError {
            throw error
        } catch {
            throw JoinError("the join did not complete: \(error)")
        }
    }
}
