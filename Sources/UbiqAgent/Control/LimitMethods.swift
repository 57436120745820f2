import UbiqControlAPI
import UbiqModel
import UbiqTransport

/// `limits.get` and `limits.set`: the bandwidth limits, changed without touching connections.
struct LimitMethods: Sendable {
    let limits: BandwidthLimits

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        if method == .limitsSet {
            let request = try RPCParams.decode(LimitsSetParams.self, from: params)
            if let peer = request.peer, !DeviceID.isWellFormed(peer.rawValue) {
                throw RPCError.invalidParams("peer \"\(peer.rawValue.prefix(80))\" is not a device ID; copy one from `ubiq devices`")
            }
            let pair = request.peer.map { limits.peer($0) } ?? limits.all
            if let send = request.send { await pair.send.setLimit(send.bytesPerSecond) }
            if let receive = request.receive { await pair.receive.setLimit(receive.bytesPerSecond) }
        }
        return try JSONValue(encoding: await status())
    }

    func status() async -> LimitsStatus {
        var peers: [LimitsStatus.Peer] = []
        for (device, pair) in limits.peerLimiters.sorted(by: { $0.key < $1.key }) {
            let (send, receive) = (await Self.direction(pair.send), await Self.direction(pair.receive))
            // A peer without limits of its own is shown only while something moves.
            guard send.limit != nil || receive.limit != nil || send.rate > 0 || receive.rate > 0 else { continue }
            peers.append(.init(device: device, send: send, receive: receive))
        }
        return LimitsStatus(send: await Self.direction(limits.all.send), receive: await Self.direction(limits.all.receive), peers: peers)
    }

    private static func direction(_ limiter: BandwidthLimiter) async -> DirectionLimit {
        DirectionLimit(limit: await limiter.limit, rate: await limiter.currentRate())
    }
}
