import NIOCore

/// One inbound message of a control connection, on either end.
public enum ControlFrame: Sendable {
    /// One line without its line end.
    case line(ByteBuffer)
    /// The client sent more than the maximum without a newline; nothing after it is read.
    case tooLong
}

/// Splits inbound bytes into ``ControlFrame``s with ``LineFramer``. An unterminated last
/// line before end of input counts as a line, so `printf '{...}' | socat` works.
public struct LineFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ControlFrame

    private var framer: LineFramer
    private var overflowed = false

    public init(maximumLength: Int) { framer = LineFramer(maximumLength: maximumLength) }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
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

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if seenEOF, !overflowed, buffer.readableBytes > 0, let rest = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(wrapInboundOut(.line(rest)))
        }
        return .needMoreData
    }
}
