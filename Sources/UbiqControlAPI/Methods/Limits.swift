import UbiqModel

/// A rate limit as `limits.set` takes it: bytes a second, or `"none"` for no limit.
public enum RateSetting: Hashable, Sendable, Codable {
    case bytesPerSecond(Int64)
    case unlimited

    /// The highest limit taken: 100 GiB a second.
    public static let ceiling: Int64 = 100 << 30

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bytes = try? container.decode(Int64.self) {
            guard bytes > 0, bytes <= Self.ceiling else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription:
                    "a limit must be between 1 and \(Self.ceiling) bytes a second; \"none\" for no limit")
            }
            self = .bytesPerSecond(bytes)
        } else if (try? container.decode(String.self)) == "none" {
            self = .unlimited
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a limit is bytes a second (an integer) or \"none\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bytesPerSecond(let bytes): try container.encode(bytes)
        case .unlimited: try container.encode("none")
        }
    }

    public var bytesPerSecond: Int64? {
        if case .bytesPerSecond(let bytes) = self { return bytes }
        return nil
    }
}

/// The params of `limits.set`: new limits for all peers together, or for one; a direction
/// left out keeps its limit.
public struct LimitsSetParams: Hashable, Sendable, Codable {
    public var peer: DeviceID?
    public var send: RateSetting?
    public var receive: RateSetting?

    public init(peer: DeviceID? = nil, send: RateSetting? = nil, receive: RateSetting? = nil) {
        self.peer = peer
        self.send = send
        self.receive = receive
    }
}

/// One direction: its limit (absent: none) and what passed in the last second.
public struct DirectionLimit: Hashable, Sendable, Codable {
    public var limit: Int64?
    public var rate: Int64

    public init(limit: Int64?, rate: Int64) {
        self.limit = limit
        self.rate = rate
    }
}

/// The bandwidth limits and current rates: all peers together, and each peer with its own.
public struct LimitsStatus: Hashable, Sendable, Codable {
    public struct Peer: Hashable, Sendable, Codable {
        public var device: DeviceID
        public var send: DirectionLimit
        public var receive: DirectionLimit

        public init(device: DeviceID, send: DirectionLimit, receive: DirectionLimit) {
            self.device = device
            self.send = send
            self.receive = receive
        }
    }

    public var send: DirectionLimit
    public var receive: DirectionLimit
    public var peers: [Peer]

    public init(send: DirectionLimit, receive: DirectionLimit, peers: [Peer]) {
        self.send = send
        self.receive = receive
        self.peers = peers
    }
}
