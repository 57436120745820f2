import NIOCore

/// The frames a peer sends, as payload bytes, in order. It ends when the connection closes
/// and throws when it broke (`FrameTooLarge` for an over-limit frame). Iterate it once, from
/// one task: after that loop ends, no more frames are read from the connection.
public struct PeerFrames: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let inbound: NIOAsyncChannelInboundStream<ByteBuffer>

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator

        public mutating func next() async throws -> [UInt8]? {
            guard let frame = try await base.next() else { return nil }
            return Array(frame.readableBytesView)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: inbound.makeAsyncIterator())
    }
}
