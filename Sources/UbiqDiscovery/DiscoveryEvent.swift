/// What a `ServiceBrowser` reports, in order, for each instance: `found`, then any number of
/// `changed`, then `lost`; after `lost` an instance that comes back is `found` again.
public enum DiscoveryEvent: Hashable, Sendable {
    /// A peer was resolved to a valid record and at least one address.
    case found(DiscoveredPeer)
    /// A peer already found now has another port, TXT record, host or address set.
    case changed(DiscoveredPeer)
    /// A peer left (its service was withdrawn or expired, or its record became invalid or
    /// filtered out). Carries the peer as last reported.
    case lost(DiscoveredPeer)
    /// The browser stopped because avahi failed or went away; the last event of the stream,
    /// after `lost` for every peer still known. Start a new browser to try again.
    case stopped(DiscoveryError)
}
