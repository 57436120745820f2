import NIOCore
import Synchronization
import UbiqWire

/// Bytes of whole frames (headers included) that crossed one connection each way, readable
/// from any thread while the event loop adds to them.
final class ByteCounters: Sendable {
    let sent = Atomic<Int>(0)
    let received = Atomic<Int>(0)
}

/// Counts the frames passing between the frame codec and the application: payloads coming
/// in, whole frames going out.
final class ByteCountingHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let counters: ByteCounters

    init(counters: ByteCounters) {
        self.counters = counters
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        counters.received.add(FrameCodec.headerLength + frame.readableBytes, ordering: .relaxed)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        counters.sent.add(Self.unwrapOutboundIn(data).readableBytes, ordering: .relaxed)
        context.write(data, promise: promise)
    }
}
