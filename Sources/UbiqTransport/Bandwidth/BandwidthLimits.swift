import Synchronization
import UbiqModel

/// The agent's bandwidth limits, changed at run time without touching connections: one
/// limiter a direction for all peers together, and one a direction for each peer given its
/// own. A frame passes both.
public final class BandwidthLimits: Sendable {
    public struct Pair: Sendable {
        public let send: BandwidthLimiter
        public let receive: BandwidthLimiter
    }

    public let all: Pair
    private let peers = Mutex<[DeviceID: Pair]>([:])

    public init(send: Int64? = nil, receive: Int64? = nil) {
        all = Pair(send: BandwidthLimiter(bytesPerSecond: send), receive: BandwidthLimiter(bytesPerSecond: receive))
    }

    /// The peer's own limiters (without a limit until one is set).
    public func peer(_ device: DeviceID) -> Pair {
        peers.withLock { peers in
            if let pair = peers[device] { return pair }
            let pair = Pair(send: BandwidthLimiter(), receive: BandwidthLimiter())
            peers[device] = pair
            return pair
        }
    }

    /// The peers that have limiters, with them.
    public var peerLimiters: [DeviceID: Pair] { peers.withLock { $0 } }

    /// Waits until `bytes` sent to `device` fit the limits.
    public func sending(_ bytes: Int, to device: DeviceID) async throws {
        try await all.send.pass(bytes)
        try await peer(device).send.pass(bytes)
    }

    /// Waits until `bytes` received from `device` fit the limits; meanwhile no more is read
    /// from its connection, so TCP slows the peer down.
    public func receiving(_ bytes: Int, from device: DeviceID) async throws {
        try await all.receive.pass(bytes)
        try await peer(device).receive.pass(bytes)
    }
}
