import NIOCore
import UbiqControlAPI

/// One inbound message from the agent.
enum ClientFrame: Sendable {
    case line(ByteBuffer)
    case tooLong
}

/// Splits the agent's output into lines with ``LineFramer``.
struct ClientLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ClientFrame

    private var framer: LineFramer
    private var overflowed = false

    init(maximumLength: Int) { framer = LineFramer(maximumLength: maximumLength) }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard !overflowed else {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return .needMoreData
        }
        switch framer.scan(buffer.readableBytesView) {
        case .line(let length, let consumed):
            let line = buffer.getSlice(at: buffer.readerIndex, length: length)!
            buffer.moveReaderIndex(forwardBy: consumed)
            context.fireChannelRead(wrapInboundOut(.line(line)))
            return .continue
        case .needMoreData:
            return .needMoreData
        case .tooLong:
            overflowed = true
            buffer.moveReaderIndex(to: buffer.writerIndex)
            context.fireChannelRead(wrapInboundOut(.tooLong))
            return .needMoreData
        }
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
