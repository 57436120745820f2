import Logging

/// Finds the other ubiq agents on the LAN: browses `_ubiq._tcp` through avahi, resolves each
/// service to its TXT record, host and port, then to its addresses, and keeps following it
/// (port, TXT and address changes, withdrawal, return) until closed.
///
/// Consume `events`; `found`/`changed`/`lost` come per instance as `DiscoveryEvent` describes.
/// The `filter` drops other accounts and the agent's own service before anything is
/// reported. Keep the browser alive while reading: it stops when it is closed, deinitialised,
/// or when the reader stops iterating `events`. All dns_sd work happens on one thread of its
/// own, which deallocates every DNSServiceRef when the browser stops.
public final class ServiceBrowser: Sendable {
    public let events: AsyncStream<DiscoveryEvent>
    private let loop: DNSServiceLoop<BrowserDriver>

    private init(events: AsyncStream<DiscoveryEvent>, loop: DNSServiceLoop<BrowserDriver>) {
        self.events = events
        self.loop = loop
    }

    /// Starts browsing. Throws `unavailable` at once when avahi-daemon cannot be reached
    /// (nothing is started then), `serviceFailed` for other refusals.
    public static func start(filter: DiscoveryFilter = .none, logger: Logger) async throws(DiscoveryError) -> ServiceBrowser {
        let (events, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
        let loop = try DNSServiceLoop<BrowserDriver>(name: "ubiq-discovery-browser") { context in
            BrowserDriver(context: context, filter: filter, logger: logger, continuation: continuation)
        }
        continuation.onTermination = { _ in loop.stop() }
        let started = await loop.call { $0.start() } ?? .failure(DiscoveryError(.closed, "the browser stopped before it started"))
        if case .failure(let error) = started {
            loop.stop()
            await loop.waitUntilFinished()
            throw error
        }
        return ServiceBrowser(events: events, loop: loop)
    }

    /// Stops browsing: reports `lost` for every peer still known, ends `events`, and returns
    /// once every DNSServiceRef is deallocated.
    public func close() async {
        loop.stop()
        await loop.waitUntilFinished()
    }

    deinit { loop.stop() }
}
