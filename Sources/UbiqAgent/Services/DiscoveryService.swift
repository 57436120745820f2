import Logging
import ServiceLifecycle
import UbiqDiscovery
import UbiqModel

/// Announces this agent over mDNS (`_ubiq._tcp`) and has the dialer connect to the
/// account's other agents it finds; agents of other accounts are dropped by the browser's
/// filter before any connection. Where avahi-daemon cannot be reached the agent says so once
/// (log and `agent.status`), keeps working on static peers, and tries again now and then.
actor DiscoveryService: Service {
    private var record: DiscoveryRecord
    private var advertiser: ServiceAdvertiser?
    let filter: DiscoveryFilter
    let dialer: PeerDialer
    let logger: Logger
    private(set) var state = "starting"
    private var saidUnavailable = false

    static let retryInterval: Duration = .seconds(10)

    init(record: DiscoveryRecord, dialer: PeerDialer, logger: Logger) {
        self.record = record
        self.filter = DiscoveryFilter(accountTag: record.accountTag, excludedDevice: record.deviceID)
        self.dialer = dialer
        self.logger = logger
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                await runOnce()
                try? await Task.sleep(for: Self.retryInterval)
            }
        } onGracefulShutdown: {}
    }

    private func runOnce() async {
        let advertiser: ServiceAdvertiser
        let browser: ServiceBrowser
        do { advertiser = try await ServiceAdvertiser.start(record, logger: logger) } catch {
            unavailable(error)
            return
        }
        do { browser = try await ServiceBrowser.start(filter: filter, logger: logger) } catch {
            await advertiser.close()
            unavailable(error)
            return
        }
        self.advertiser = advertiser
        defer { self.advertiser = nil }
        state = "running"
        saidUnavailable = false
        logger.info("discovery running", metadata: ["service": "\(DiscoveryRecord.serviceType)", "port": "\(record.port)"])
        for await event in browser.events.cancelOnGracefulShutdown() {
            switch event {
            case .found(let peer), .changed(let peer):
                logger.info("discovered a peer", metadata: [
                    "peer": "\(peer.deviceID)", "addresses": "\(peer.addresses.joined(separator: " "))", "port": "\(peer.port)",
                ])
                await dialer.set(Self.key(peer), .init(hosts: peer.addresses, port: Int(peer.port), device: peer.deviceID))
            case .lost(let peer):
                logger.info("peer left the network", metadata: ["peer": "\(peer.deviceID)"])
                await dialer.remove(Self.key(peer))
            case .stopped(let error):
                unavailable(error)
            }
        }
        await browser.close()
        await advertiser.close()
    }

    /// Announces an open invitation (`join=PORT:HINT`), or that none is open any more.
    func announce(_ invitation: DiscoveryRecord.Invitation?) async {
        record = record.with(invitation: invitation)
        do { try await advertiser?.update(record) } catch {
            logger.warning("could not announce the invitation over mDNS; `--peer` still works", metadata: ["error": "\(error)"])
        }
    }

    private func unavailable(_ error: DiscoveryError) {
        state = "unavailable: \(error.reason)"
        guard !saidUnavailable else { return }
        saidUnavailable = true
        logger.warning("discovery unavailable; static peers still work", metadata: ["reason": "\(error.reason)"])
    }

    static func key(_ peer: DiscoveredPeer) -> String { "mdns \(peer.instance)" }
}

extension DiscoveryService: CustomStringConvertible {
    nonisolated var description: String { "DiscoveryService" }
}
