import NIOCore
import NIOPosix
import UbiqControlAPI

/// A bare line-oriented socket client, for sending what no well-behaved client would.
public final class RawLineClient: Sendable {
    private let channel: any Channel
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let lines: AsyncStream<[UInt8]>
    private let reader: Task<Void, Never>

    private struct Decoder: ByteToMessageDecoder {
        typealias InboundOut = ByteBuffer
        var framer = LineFramer(maximumLength: 64 << 20)

        mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
            guard case .line(let length, let consumed) = framer.scan(buffer.readableBytesView) else { return .needMoreData }
            let line = buffer.getSlice(at: buffer.readerIndex, length: length)!
            buffer.moveReaderIndex(forwardBy: consumed)
            context.fireChannelRead(wrapInboundOut(line))
            return .continue
        }
    }

    public init(socketPath: String) async throws {
        let asyncChannel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: socketPath) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(Decoder()))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        channel = asyncChannel.channel
        let (lines, sink) = AsyncStream.makeStream(of: [UInt8].self)
        let (writers, writerSink) = AsyncStream.makeStream(of: NIOAsyncChannelOutboundWriter<ByteBuffer>.self)
        self.lines = lines
        reader = Task {
            try? await asyncChannel.executeThenClose { inbound, outbound in
                writerSink.yield(outbound)
                writerSink.finish()
                for try await line in inbound { sink.yield(Array(line.readableBytesView)) }
            }
            writerSink.finish()
            sink.finish()
        }
        var iterator = writers.makeAsyncIterator()
        guard let outbound = await iterator.next() else { throw ChannelError.ioOnClosedChannel }
        self.outbound = outbound
    }

    public func send(_ bytes: [UInt8]) async throws {
        try await outbound.write(ByteBuffer(bytes: bytes))
    }

    public func send(line: String) async throws { try await send(Array((line + "\n").utf8)) }

    /// Half-closes: the server sees end of input but may still answer.
    public func finishSending() async throws { try await channel.close(mode: .output) }

    /// The next line, or nil once the server has closed the connection.
    public func readLine() async -> [UInt8]? {
        var iterator = lines.makeAsyncIterator()
        return await iterator.next()
    }

    /// The next line parsed as JSON, or nil at end of stream.
    public func readJSON() async throws -> JSONValue? {
        guard let line = await readLine() else { return nil }
        return try JSONValue(parsing: line)
    }

    /// The first line parsed as JSON that `matches`, read for at most `timeout`: nil when
    /// none came by then, or the stream ended first.
    public func readJSON(within timeout: Duration, where matches: @escaping @Sendable (JSONValue) -> Bool) async throws -> JSONValue? {
        try await withThrowingTaskGroup(of: JSONValue?.self) { group in
            group.addTask {
                while let line = try await self.readJSON() {
                    if matches(line) { return line }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    public func close() async {
        try? await channel.close()
        await reader.value
    }
}
