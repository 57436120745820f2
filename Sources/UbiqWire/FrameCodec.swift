import NIOCore

/// The peer protocol's framing (DESIGN.md §4): every message travels as a 4-byte big-endian
/// length followed by that many bytes of payload (one protobuf `Envelope`).
///
///     +--------+--------+--------+--------+----------------------------+
///     |        payload length (UInt32 BE)  |  payload (length bytes)    |
///     +--------+--------+--------+--------+----------------------------+
///
/// A frame that declares more than the limit (16 MiB unless told otherwise) is refused as
/// soon as its header arrives, with `FrameTooLarge`, so the connection can be closed before
/// the payload is buffered. Empty frames are legal.
public enum FrameCodec {
    /// The size of the length header in bytes.
    public static let headerLength = 4
    /// The largest payload accepted unless a codec is told otherwise: 16 MiB.
    public static let defaultMaximumFrameLength = 16 * 1024 * 1024
}

/// A frame exceeded the size limit; the connection that carried it should be closed.
public struct FrameTooLarge: Error, Sendable, Equatable, CustomStringConvertible {
    /// The payload length the frame declared (or, when sending, had).
    public let length: Int
    /// The limit it broke.
    public let limit: Int

    public init(length: Int, limit: Int) {
        self.length = length
        self.limit = limit
    }

    public var description: String {
        "A frame of \(length) bytes exceeds the limit of \(limit) bytes; the connection is closed."
    }
}

/// Splits incoming bytes into frame payloads (see `FrameCodec` for the layout), each in a
/// buffer of its own, sized from its header.
///
/// Every byte is copied once, from the TLS handler's buffer into its frame's. A
/// `ByteToMessageHandler` instead keeps a growing buffer of all input that the frames handed
/// on are slices of: each append to it then copied it anew into fresh memory, and the TLS
/// handler's own buffer as well. In `perf` of a 512 MiB transfer, those copies and the page
/// faults on their fresh memory cost the receiver 0.25 CPU-seconds.
///
/// An over-limit header fires `FrameTooLarge` and everything after it is ignored; input that
/// ends inside a frame fires `ByteToMessageDecoderError.leftoverDataWhenDone`.
public final class FrameDecoder: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer

    public let maximumFrameLength: Int
    /// The header read so far, big-endian, and how many of its bytes that is.
    private var header: UInt32 = 0
    private var headerBytes = 0
    /// The payload being filled, and how many of its bytes are still to come.
    private var payload: ByteBuffer?
    private var missing = 0
    private var failed = false

    /// A frame's buffer is set aside up to this size when its header arrives; a larger one
    /// grows as its bytes do, so a header alone cannot claim the whole limit.
    static let initialCapacity = 2 << 20

    public init(maximumFrameLength: Int = FrameCodec.defaultMaximumFrameLength) {
        self.maximumFrameLength = maximumFrameLength
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var input = unwrapInboundIn(data)
        while !failed {
            if var filling = payload.take() {
                let count = min(missing, input.readableBytes)
                filling.writeImmutableBuffer(input.readSlice(length: count)!)
                missing -= count
                guard missing == 0 else {
                    payload = filling
                    return
                }
                context.fireChannelRead(wrapInboundOut(filling))
                continue
            }
            while headerBytes < FrameCodec.headerLength, let byte = input.readInteger(as: UInt8.self) {
                header = header << 8 | UInt32(byte)
                headerBytes += 1
            }
            guard headerBytes == FrameCodec.headerLength else { return }
            let length = Int(header)
            (header, headerBytes) = (0, 0)
            guard length <= maximumFrameLength else {
                failed = true
                context.fireErrorCaught(FrameTooLarge(length: length, limit: maximumFrameLength))
                return
            }
            missing = length
            payload = context.channel.allocator.buffer(capacity: min(length, Self.initialCapacity))
        }
    }

    public func channelInactive(context: ChannelHandlerContext) {
        reportLeftover(context: context)
        context.fireChannelInactive()
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent { reportLeftover(context: context) }
        context.fireUserInboundEventTriggered(event)
    }

    /// A frame cut short by the end of the input is an error.
    private func reportLeftover(context: ChannelHandlerContext) {
        guard !failed, payload != nil || headerBytes > 0 else { return }
        failed = true
        var leftover = payload.take() ?? context.channel.allocator.buffer(capacity: 0)
        if headerBytes > 0 { leftover.writeInteger(header) }
        context.fireErrorCaught(ByteToMessageDecoderError.leftoverDataWhenDone(leftover))
    }
}
