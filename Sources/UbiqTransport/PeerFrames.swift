import NIOCore

/// The frames a peer sends, as payload bytes (not copied out of the receive buffer), in
/// order. It ends when the connection closes and throws when it broke (`FrameTooLarge` for
/// an over-limit frame). Iterate it once, from one task: after that loop ends, no more
/// frames are read from the connection.
public struct PeerFrames: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer

    let inbound: NIOAsyncChannelInboundStream<ByteBuffer>

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator

        public mutating func next() async throws -> ByteBuffer? {
            try await base.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: inbound.makeAsyncIterator())
    }
}
