import Foundation
import Logging
import ServiceLifecycle
import UbiqControlAPI
import UbiqDiscovery
import UbiqIdentity
import UbiqSync
import UbiqTransport

/// The open invitation of a member device (`device.invite`): one code at a time, valid for
/// ten minutes and one join; three wrong proofs burn it. While it is open a join listener
/// of its own takes the joiner's proof and, for the right one, hands over the account
/// bundle with this device's own proof.
actor JoinInvites {
    static let lifetime: Duration = .seconds(600)
    static let wrongProofsAllowed = 3

    private struct Invite {
        let code: JoinCode
        let expires: ContinuousClock.Instant
        var wrong = 0
        let listener: JoinListener
    }

    private var invite: Invite?
    /// Set when the account's parts stop (a sign-out, a rotation): no invitation opens again.
    private var ended = false
    private let identity: DeviceIdentity
    private let store: IdentityStore
    private let logger: Logger
    private let clock = ContinuousClock()
    /// Announces the open invitation over mDNS (nil: none open); nil without discovery.
    private let announce: (@Sendable (DiscoveryRecord.Invitation?) async -> Void)?
    /// Where the joined device reaches this one to sync.
    private let syncPorts: [Int]
    /// The account's devices, which list a joined device at once.
    private let devices: AccountDevices
    /// The join port asked for (`join_port`); 0: any the system gives.
    private let port: Int

    init(identity: DeviceIdentity, store: IdentityStore, devices: AccountDevices, port: Int, syncPorts: [Int], logger: Logger,
         announce: (@Sendable (DiscoveryRecord.Invitation?) async -> Void)?) {
        self.identity = identity
        self.store = store
        self.devices = devices
        self.port = port
        self.syncPorts = syncPorts
        self.logger = logger
        self.announce = announce
    }

    /// Opens a new invitation on `host`, replacing any open one.
    func open(host: String) async throws -> (code: JoinCode, port: Int, expires: Date) {
        await close()
        guard !ended else { throw RPCError(.unavailable, "syncing is restarting or signed out; invite again in a moment") }
        let code = JoinCode.generate()
        let answer: @Sendable (JoinAttempt) async -> JoinAnswer = { [weak self] attempt in
            await self?.answer(attempt) ?? JoinAnswer(error: "the invitation is closed")
        }
        let listener: JoinListener
        do {
            listener = try await JoinListener.open(identity: identity, host: host, port: port, logger: logger, answer: answer)
        } catch where port != 0 {
            // Taken by another program (or a second agent): any port works, if not through a firewall.
            logger.warning("the join port is taken; this invitation listens on another, which a firewall may block (set join_port)",
                           metadata: ["port": "\(port)", "error": "\(error)"])
            listener = try await JoinListener.open(identity: identity, host: host, port: 0, logger: logger, answer: answer)
        }
        let expires = clock.now + Self.lifetime
        invite = Invite(code: code, expires: expires, listener: listener)
        let port = listener.port
        Task { [weak self] in
            try? await Task.sleep(for: Self.lifetime)
            await self?.expire(code)
        }
        if let announce, let port = UInt16(exactly: port) { await announce(try? DiscoveryRecord.Invitation(port: port, hint: code.hint)) }
        logger.notice("invitation open", metadata: ["port": "\(port)", "lifetime": "\(Self.lifetime)"])
        return (code, port, Date().addingTimeInterval(TimeInterval(Self.lifetime.components.seconds)))
    }

    /// Closes the open invitation for good: the account's parts are stopping, and the
    /// invitation's account may be gone (a sign-out) or its key replaced (a rotation).
    func end() async {
        ended = true
        guard invite != nil else { return }
        await close()
        logger.notice("invitation closed: the account's syncing stopped")
    }

    func close() async {
        guard let open = invite else { return }
        invite = nil
        await open.listener.close()
        await announce?(nil)
    }

    private func expire(_ code: JoinCode) async {
        guard invite?.code == code else { return }
        logger.notice("invitation expired unused")
        await close()
    }

    private func answer(_ attempt: JoinAttempt) async -> JoinAnswer {
        guard var open = invite, clock.now < open.expires else {
            return JoinAnswer(error: "no invitation is open; run `ubiq device invite` again")
        }
        guard open.code.isValid(attempt.proof, .joiner, binding: attempt.binding) else {
            open.wrong += 1
            logger.warning("a join attempt with a wrong code", metadata: ["from": "\(attempt.from)", "wrong": "\(open.wrong)"])
            if open.wrong >= Self.wrongProofsAllowed {
                await close()
                return JoinAnswer(error: "wrong code; after three wrong tries the code is burned: run `ubiq device invite` again")
            }
            invite = open
            return JoinAnswer(error: "wrong code (\(Self.wrongProofsAllowed - open.wrong) tries left)")
        }
        let bundle: String
        do { bundle = try store.bundleText() } catch {
            return JoinAnswer(error: "this device cannot hand over the account: \(error)")
        }
        let proof = open.code.proof(.inviter, binding: attempt.binding)
        await close()
        if let device = try? KeyDigests.deviceID(certificateDER: attempt.certificateDER),
           let key = try? KeyDigests.subjectPublicKeyInfo(certificateDER: attempt.certificateDER) {
            await devices.joined(device, name: attempt.name, publicKey: key)
            logger.notice("a device joined with the invitation's code",
                          metadata: ["from": "\(attempt.from)", "name": "\(attempt.name)", "device": "\(device)"])
        }
        return JoinAnswer(proof: proof, bundle: bundle, syncPorts: syncPorts)
    }
}

/// The invitation lives no longer than the account's parts it belongs to.
extension JoinInvites: Service {
    nonisolated func run() async throws {
        try? await gracefulShutdown()
        await end()
    }
}
