import Logging
import ServiceLifecycle
import UbiqIdentity

/// Runs the signed-in account's parts (``SyncSession``) as a service group of their own:
/// from the start when there is an account (a first start makes one), until a sign-out
/// stops them; while signed out it waits for a sign-in. The control socket runs beside it
/// throughout.
struct AccountService: Service {
    let host: AgentHost
    let logger: Logger
    let banner: @Sendable (SyncSession, Bool) -> Void

    func run() async throws {
        var signIns = host.signIns.cancelOnGracefulShutdown().makeAsyncIterator()
        while !Task.isShuttingDownGracefully {
            let start: (identity: DeviceIdentity?, created: Bool)
            do { start = try host.store.identityForStart(deviceName: host.configuration.deviceName) } catch {
                await host.failedToStart(error)
                throw error
            }
            guard let identity = start.identity else {
                await host.startsSignedOut()
                logger.notice("signed out: `ubiq account create` or `ubiq account join` signs this workstation in")
                guard await signIns.next() != nil else { return }
                continue
            }
            await host.starts()
            let session: SyncSession
            do { session = try await SyncSession.build(host.configuration, identity: identity, host: host, logger: logger) } catch {
                await host.failedToStart(error)
                throw error
            }
            banner(session, start.created)
            let group = ServiceGroup(configuration: .init(services: session.services.map { .init(service: $0) }, logger: logger))
            await host.began(session, stop: { await group.triggerGracefulShutdown() })
            try await withGracefulShutdownHandler {
                try await group.run()
            } onGracefulShutdown: {
                Task { await group.triggerGracefulShutdown() }
            }
            await host.ended()
            // Only a sign-out stops the account's group: the next one starts at a sign-in.
            if Task.isShuttingDownGracefully { return }
            guard await signIns.next() != nil else { return }
        }
    }
}

extension AccountService: CustomStringConvertible {
    var description: String { "AccountService" }
}
