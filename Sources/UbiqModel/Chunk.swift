/// The SHA-256 of a chunk's bytes: its name everywhere in ubiq.
public struct ChunkHash: Hashable, Sendable, Codable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    public var hex: String {
        var s = ""
        s.reserveCapacity(64)
        for byte in bytes {
            s.append(Self.digits[Int(byte >> 4)])
            s.append(Self.digits[Int(byte & 15)])
        }
        return s
    }

    public var description: String { String(hex.prefix(12)) }
    private static let digits = Array("0123456789abcdef")
}

/// One chunk of a file: where it starts, how long it is, and its hash.
public struct ChunkRef: Hashable, Sendable, Codable {
    public var offset: UInt64
    public var size: UInt32
    public var hash: ChunkHash

    public init(offset: UInt64, size: UInt32, hash: ChunkHash) {
        self.offset = offset
        self.size = size
        self.hash = hash
    }
}

extension BidirectionalCollection where Element == ChunkRef {
    /// The bytes a run of adjacent chunks covers, from the first's offset to the last's end;
    /// nil for no chunks.
    public var span: Range<UInt64>? {
        guard let first, let last else { return nil }
        return first.offset..<(last.offset + UInt64(last.size))
    }
}
