import Logging

/// What happens to an advertiser's registration after `start` returned.
public enum AdvertiserEvent: Hashable, Sendable {
    /// avahi announced the service under this instance name (the device ID, or with " #2"
    /// appended when another service on the LAN holds that name).
    case registered(instance: String)
    /// The registration was lost (avahi-daemon went away or refused it); call `update` to try
    /// again.
    case failed(DiscoveryError)
}

/// Announces this agent on the LAN: registers `_ubiq._tcp` with the record's TXT and port
/// through avahi, keeps the registration up to date, and withdraws it when closed or
/// deinitialised. All dns_sd work happens on one thread of its own.
public final class ServiceAdvertiser: Sendable {
    /// Registration outcomes; ends when the advertiser is closed.
    public let events: AsyncStream<AdvertiserEvent>
    private let loop: DNSServiceLoop<AdvertiserDriver>

    private init(events: AsyncStream<AdvertiserEvent>, loop: DNSServiceLoop<AdvertiserDriver>) {
        self.events = events
        self.loop = loop
    }

    /// Registers `record`. Returns once avahi accepted the request (`events` reports when the
    /// name is established); throws `unavailable` at once when avahi-daemon cannot be reached.
    public static func start(_ record: DiscoveryRecord, logger: Logger) async throws(DiscoveryError) -> ServiceAdvertiser {
        let (events, continuation) = AsyncStream.makeStream(of: AdvertiserEvent.self, bufferingPolicy: .bufferingNewest(32))
        let loop = try DNSServiceLoop<AdvertiserDriver>(name: "ubiq-discovery-advertiser") { context in
            AdvertiserDriver(context: context, record: record, logger: logger, continuation: continuation)
        }
        let started = await loop.call { $0.register() } ?? .failure(DiscoveryError(.closed, "the advertiser stopped before it started"))
        if case .failure(let error) = started {
            loop.stop()
            await loop.waitUntilFinished()
            throw error
        }
        return ServiceAdvertiser(events: events, loop: loop)
    }

    /// The record currently announced (or being announced).
    public var record: DiscoveryRecord {
        get async throws(DiscoveryError) {
            guard let record = await loop.call({ $0.record }) else { throw Self.closedError }
            return record
        }
    }

    /// Announces `record` instead: the TXT record is updated in place; a new port (or device)
    /// withdraws the registration and registers again.
    public func update(_ record: DiscoveryRecord) async throws(DiscoveryError) {
        guard let result = await loop.call({ $0.update(record) }) else { throw Self.closedError }
        try result.get()
    }

    /// Announces the same record on another port (e.g. after the listener moved).
    public func updatePort(_ port: UInt16) async throws(DiscoveryError) {
        let result = await loop.call { driver -> Result<Void, DiscoveryError> in
            do throws(DiscoveryError) {
                return driver.update(try driver.record.with(port: port))
            } catch {
                return .failure(error)
            }
        }
        guard let result else { throw Self.closedError }
        try result.get()
    }

    /// Withdraws the announcement and returns once the DNSServiceRef is deallocated.
    public func close() async {
        loop.stop()
        await loop.waitUntilFinished()
    }

    deinit { loop.stop() }

    private static let closedError = DiscoveryError(.closed, "the advertiser is closed; start a new one")
}
