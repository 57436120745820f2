import UbiqConfig
import UbiqTransport

extension BandwidthLimits {
    /// The limits the configuration starts with: for all peers, and each `[[peer_limit]]`.
    convenience init(_ config: AgentConfiguration) async {
        self.init(send: Self.bytes(config.maxSendKiBPerSecond), receive: Self.bytes(config.maxReceiveKiBPerSecond))
        for limit in config.peerLimits {
            let pair = peer(limit.device)
            await pair.send.setLimit(Self.bytes(limit.maxSendKiBPerSecond))
            await pair.receive.setLimit(Self.bytes(limit.maxReceiveKiBPerSecond))
        }
    }

    private static func bytes(_ kib: Int?) -> Int64? { kib.map { Int64($0) * 1024 } }
}
