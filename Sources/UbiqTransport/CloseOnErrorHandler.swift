import NIOCore

/// Closes the connection on any error once the error has been passed on, so the
/// application's frame sequence ends with that error (an over-limit frame, a TLS failure)
/// rather than with a plain end.
final class CloseOnErrorHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }
}
