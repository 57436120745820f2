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

/// Splits incoming bytes into frame payloads (see `FrameCodec` for the layout).
public struct FrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    public let maximumFrameLength: Int

    public init(maximumFrameLength: Int = FrameCodec.defaultMaximumFrameLength) {
        self.maximumFrameLength = maximumFrameLength
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let declared = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return .needMoreData
        }
        let length = Int(declared)
        guard length <= maximumFrameLength else {
            throw FrameTooLarge(length: length, limit: maximumFrameLength)
        }
        guard buffer.readableBytes >= FrameCodec.headerLength + length else {
            return .needMoreData
        }
        buffer.moveReaderIndex(forwardBy: FrameCodec.headerLength)
        let payload = buffer.readSlice(length: length)!
        context.fireChannelRead(Self.wrapInboundOut(payload))
        return .continue
    }

    /// Delivers the frames still buffered when the input ends; a frame cut short is an error.
    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        let state = try decode(context: context, buffer: &buffer)
        if case .needMoreData = state, buffer.readableBytes > 0 {
            throw ByteToMessageDecoderError.leftoverDataWhenDone(buffer)
        }
        return state
    }
}
