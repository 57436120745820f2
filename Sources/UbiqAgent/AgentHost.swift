import Foundation
import Logging
import UbiqConfig
import UbiqControlAPI
import UbiqIdentity
import UbiqModel

/// Whether the agent is signed in, and to what: the account's running parts
/// (``SyncSession``) while signed in, nothing while signed out. The control socket asks it
/// at every call; signing out and in while the agent runs go through it, and so do the
/// notices of identity changes.
actor AgentHost {
    let configuration: AgentConfiguration
    let store: IdentityStore
    let logger: Logger
    private(set) var session: SyncSession?
    private var stopSession: (@Sendable () async -> Void)?
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var startWaiters: [CheckedContinuation<Result<Void, RPCError>, Never>] = []
    private var identityWatchers: [UInt64: AsyncStream<String?>.Continuation] = [:]
    private var nextWatcher: UInt64 = 0
    /// The token watchers last heard: a restart after a rotation keeps it and tells nobody.
    private var toldToken: String??
    /// Whether the account's parts are being built (at start, or after a sign-in).
    private var starting: Bool
    /// Whether the account's parts are stopping to be built again (``restartSoon()``).
    private var restarting = false
    /// Wakes the account service when a signed-out agent is signed in.
    nonisolated let signIns: AsyncStream<Void>
    private let signInRequest: AsyncStream<Void>.Continuation

    init(configuration: AgentConfiguration, logger: Logger) {
        self.configuration = configuration
        self.store = IdentityStore(state: StateDirectory(path: configuration.stateDirectory))
        self.logger = logger
        (signIns, signInRequest) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        // A start with an account, or a first start, builds the account's parts at once.
        starting = !store.signedOut
    }

    // MARK: the account service's side

    func starts() { starting = true }

    /// The agent starts signed out: calls waiting for a start are answered as signed out.
    func startsSignedOut() {
        startSettled(.success(()))
    }

    func began(_ session: SyncSession, stop: @escaping @Sendable () async -> Void) {
        self.session = session
        stopSession = stop
        startSettled(.success(()))
        if toldToken != .some(session.identity.identityToken) { tellIdentity(session.identity.identityToken) }
    }

    func ended() {
        session = nil
        stopSession = nil
        for waiter in endWaiters { waiter.resume() }
        endWaiters = []
    }

    func failedToStart(_ error: any Error) {
        startSettled(.failure(RPCError(.internalError, "signed in, but syncing did not start: \(error)")))
    }

    /// No start is under way any more: whoever waited for one hears how it went.
    private func startSettled(_ result: Result<Void, RPCError>) {
        starting = false
        for waiter in startWaiters { waiter.resume(returning: result) }
        startWaiters = []
    }

    // MARK: the control socket's side

    /// The signed-in account's parts; while they are being built, once they are (a call
    /// made just after the agent started waits instead of failing); nil when signed out.
    func currentSession() async -> SyncSession? {
        guard session == nil, starting else { return session }
        _ = await withCheckedContinuation { startWaiters.append($0) }
        return session
    }

    func identity() async -> AccountIdentity {
        guard let identity = await currentSession()?.identity else {
            return AccountIdentity(identityToken: nil, deviceID: DeviceID(""), deviceName: configuration.deviceName)
        }
        return AccountIdentity(identityToken: identity.identityToken, deviceID: identity.deviceID, deviceName: configuration.deviceName)
    }

    /// The identity token at every change (nil: signed out), and first the one now unless
    /// `dropFirst`.
    func identityChanges(dropFirst: Bool = false) -> AsyncStream<String?> {
        let (stream, continuation) = AsyncStream.makeStream(of: String?.self, bufferingPolicy: .bufferingNewest(8))
        let id = nextWatcher
        nextWatcher += 1
        identityWatchers[id] = continuation
        if !dropFirst { continuation.yield(session?.identity.identityToken) }
        continuation.onTermination = { [weak self] _ in Task { await self?.forgetWatcher(id) } }
        return stream
    }

    private func forgetWatcher(_ id: UInt64) { identityWatchers[id] = nil }

    private func tellIdentity(_ token: String?) {
        toldToken = .some(token)
        for watcher in identityWatchers.values { watcher.yield(token) }
    }

    /// Signs out while running: syncing stops, the identity goes, the index of this account
    /// is put aside in the state folder, and the containers' folders are moved aside (or, with
    /// `keep`, left where they are, bound to this account so that no other syncs them).
    func signOut(keep: Bool) async throws -> AccountLeaveResult {
        guard let session = await currentSession(), let stop = stopSession else {
            throw RPCError(.unavailable, store.hasAccount
                ? "the agent is still starting; try again in a moment"
                : "this workstation is signed out already; `ubiq account create` or `ubiq account join` signs it in")
        }
        let token = session.identity.identityToken
        for store in session.stores { await store.accountEnded() }
        await withCheckedContinuation { continuation in
            endWaiters.append(continuation)
            Task { await stop() }
        }
        tellIdentity(nil)
        do { try store.leave() } catch {
            throw RPCError(.internalError, "syncing stopped, but the identity could not be removed: \(error); run `ubiq account leave` again")
        }
        let aside = try SignedOutState.putIndexAside(stateDirectory: configuration.stateDirectory, token: token)
        var moved: [MovedFolder] = []
        var kept: [String] = []
        for container in configuration.containers {
            if keep {
                kept.append(container.path)
            } else if let to = try SignedOutState.moveAside(container.path) {
                moved.append(MovedFolder(container: container.id, from: container.path, to: to))
            }
        }
        logger.notice("signed out", metadata: ["account": "\(token.prefix(16))", "index": "\(aside ?? "none")",
                                               "moved": "\(moved.count)", "kept": "\(kept.count)"])
        return AccountLeaveResult(identityToken: token, movedAside: moved, kept: kept)
    }

    /// Signs a signed-out agent in to a new account; returns once syncing runs.
    func create(name: String?) async throws -> AccountIdentity {
        try requireSignedOut()
        do { _ = try store.createAccount(deviceName: name ?? configuration.deviceName) } catch {
            throw RPCError(.invalidParams, "\(error)")
        }
        return try await signedIn()
    }

    /// Signs a signed-out agent in to the account in `bundle`; returns once syncing runs.
    func join(bundle: String, name: String?, deviceKey: String? = nil) async throws -> AccountIdentity {
        try requireSignedOut()
        do { _ = try store.join(bundleText: bundle, deviceName: name ?? configuration.deviceName, deviceKeyPEM: deviceKey) } catch {
            throw RPCError(.invalidParams, "\(error)")
        }
        return try await signedIn()
    }

    // MARK: rotation

    /// Takes rotations a peer sent, checked against this device's CA; when one is new, the
    /// account's parts restart with the new certificate. Serialized here, so two peers'
    /// hand-overs never write the identity at once.
    func takeRotations(_ rotations: [AccountRotation]) throws -> Bool {
        guard try store.apply(rotations) != nil else { return false }
        restartSoon()
        return true
    }

    /// Rotates the account from this device, keeping the devices whose public keys are given;
    /// the account's parts restart with the new certificate once the caller has sent the
    /// rotation to the connected peers (``restartSoon()``).
    func rotate(keeping publicKeys: [[UInt8]], by rotator: DeviceID) throws -> AccountRotation {
        try store.rotate(keeping: publicKeys, by: rotator)
    }

    /// Stops the account's parts and builds them again from the stored identity (after a
    /// rotation), without a sign-out. The old parts are out of reach at once: control calls
    /// made from now on wait for the new ones (a client whose subscription just ended
    /// subscribes again to the new parts, not to the stopping ones).
    func restartSoon() {
        guard let stop = stopSession, !restarting else { return }
        restarting = true
        starting = true
        session = nil
        Task {
            await withCheckedContinuation { continuation in
                endWaiters.append(continuation)
                Task { await stop() }
            }
            restarting = false
            signInRequest.yield(())
        }
    }

    private func requireSignedOut() throws {
        guard session == nil, !store.hasAccount else {
            throw RPCError(.invalidParams, "this workstation is signed in; `ubiq account leave` signs it out first")
        }
    }

    private func signedIn() async throws -> AccountIdentity {
        let started = await withCheckedContinuation { continuation in
            startWaiters.append(continuation)
            signInRequest.yield(())
        }
        try started.get()
        return await identity()
    }
}
