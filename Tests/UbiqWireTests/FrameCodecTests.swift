import Foundation
import NIOCore
import NIOEmbedded
import Testing
import UbiqWire

@Suite struct FrameCodecTests {
    private func decoderChannel(limit: Int = FrameCodec.defaultMaximumFrameLength) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FrameDecoder(maximumFrameLength: limit))
        return channel
    }

    private func frame(_ payload: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(payload.count), endianness: .big)
        buffer.writeBytes(payload)
        return buffer
    }

    private func readPayloads(_ channel: EmbeddedChannel) throws -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        while let buffer = try channel.readInbound(as: ByteBuffer.self) {
            payloads.append(Array(buffer.readableBytesView))
        }
        return payloads
    }

    @Test func framedBytesHoldBigEndianLengthThenPayload() {
        #expect(Array(FramedBytes([0xAA, 0xBB, 0xCC]).frame.readableBytesView) == [0, 0, 0, 3, 0xAA, 0xBB, 0xCC])
        #expect(Array(FramedBytes(repeating: 0, count: 0).frame.readableBytesView) == [0, 0, 0, 0])
    }

    /// An envelope serialized into its frame reads back, through the decoder, as the same
    /// envelope, decoded where it lies in the receive buffer.
    @Test func anEnvelopeSerializedIntoItsFrameDecodesBack() throws {
        var response = Ubiq_Wire_ChunkResponse()
        response.id = 7
        response.data = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let envelope = Ubiq_Wire_Envelope(.chunkResponse(response))
        let decoder = try decoderChannel()
        try decoder.writeInbound(envelope.frame().frame)
        let payload = try #require(try decoder.readInbound(as: ByteBuffer.self))
        #expect(Array(payload.readableBytesView) == envelope.payload())
        #expect(try Ubiq_Wire_Envelope(payload: payload) == envelope)
        #expect(try decoder.finish().isClean)
    }

    @Test func decodesInputArrivingByteByByte() throws {
        let channel = try decoderChannel()
        var input = frame([1, 2, 3])
        input.writeImmutableBuffer(frame([]))
        input.writeImmutableBuffer(frame([9]))
        for byte in input.readableBytesView {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        #expect(try readPayloads(channel) == [[1, 2, 3], [], [9]])
        #expect(try channel.finish().isClean)
    }

    @Test func decodesSeveralFramesInOneBuffer() throws {
        let channel = try decoderChannel()
        var input = ByteBuffer()
        for payload: [UInt8] in [[1], [2, 2], [3, 3, 3], []] {
            input.writeImmutableBuffer(frame(payload))
        }
        try channel.writeInbound(input)
        #expect(try readPayloads(channel) == [[1], [2, 2], [3, 3, 3], []])
        #expect(try channel.finish().isClean)
    }

    @Test func decodesFrameSplitAcrossBuffersAtEveryPoint() throws {
        let whole = frame(Array(0..<10)).readableBytesView
        for split in 1..<whole.count {
            let channel = try decoderChannel()
            try channel.writeInbound(ByteBuffer(bytes: whole.prefix(split)))
            #expect(try readPayloads(channel).isEmpty)
            try channel.writeInbound(ByteBuffer(bytes: whole.dropFirst(split)))
            #expect(try readPayloads(channel) == [Array(0..<10)])
            #expect(try channel.finish().isClean)
        }
    }

    /// A frame far larger than one read, arriving in reads of TLS-record size together with
    /// the start of the next frame, comes out whole and in order.
    @Test func decodesALargeFrameArrivingInManyReads() throws {
        let channel = try decoderChannel()
        let big = (0..<1_100_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        var input = frame(big)
        input.writeImmutableBuffer(frame([5, 6]))
        input.writeImmutableBuffer(frame(Array(repeating: 9, count: 40_000)))
        while input.readableBytes > 0 {
            try channel.writeInbound(input.readSlice(length: min(16_411, input.readableBytes))!)
        }
        #expect(try readPayloads(channel) == [big, [5, 6], Array(repeating: 9, count: 40_000)])
        #expect(try channel.finish().isClean)
    }

    @Test func acceptsFrameOfExactlyTheLimit() throws {
        let channel = try decoderChannel(limit: 4)
        try channel.writeInbound(frame([1, 2, 3, 4]))
        #expect(try readPayloads(channel) == [[1, 2, 3, 4]])
        #expect(try channel.finish().isClean)
    }

    @Test func refusesOverLimitFrameOnItsHeader() throws {
        let channel = try decoderChannel(limit: 4)
        var header = ByteBuffer()
        header.writeInteger(UInt32(5), endianness: .big)
        #expect(throws: FrameTooLarge(length: 5, limit: 4)) {
            try channel.writeInbound(header)
        }
        _ = try? channel.finish()
    }

    @Test func defaultLimitIs16MiB() throws {
        #expect(FrameCodec.defaultMaximumFrameLength == 16 * 1024 * 1024)
        let channel = try decoderChannel()
        var header = ByteBuffer()
        header.writeInteger(UInt32(16 * 1024 * 1024 + 1), endianness: .big)
        #expect(throws: FrameTooLarge.self) {
            try channel.writeInbound(header)
        }
        _ = try? channel.finish()
    }

    @Test func partialFrameAtEndIsReportedAsLeftover() throws {
        let channel = try decoderChannel()
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 5, 1]))
        #expect(throws: ByteToMessageDecoderError.self) {
            _ = try channel.finish()
        }
    }

    @Test func framesDecodeToTheSamePayloads() throws {
        let decoder = try decoderChannel()
        let payloads: [[UInt8]] = [[], [0], Array(repeating: 7, count: 70_000), [1, 2]]
        for payload in payloads {
            try decoder.writeInbound(FramedBytes(payload).frame)
        }
        #expect(try readPayloads(decoder) == payloads)
        #expect(try decoder.finish().isClean)
    }
}
