import Foundation
import NIOCore
import SwiftProtobuf
import Testing
import UbiqWire

/// The chunk response's hand-written coding must agree with SwiftProtobuf byte for byte when
/// sending, and message for message when receiving, whatever a peer sends.
@Suite struct ChunkResponseCodingTests {
    static let ids: [UInt64] = [0, 1, 127, 128, 300, 1 << 32, .max]
    static let sizes = [0, 1, 127, 128, 16_384, 70_000]
    static let errors: [Ubiq_Wire_ChunkError] = [.none, .notFound, .invalid, .UNRECOGNIZED(5), .UNRECOGNIZED(300), .UNRECOGNIZED(-1)]

    private func response(id: UInt64, size: Int, error: Ubiq_Wire_ChunkError) -> Ubiq_Wire_ChunkResponse {
        var response = Ubiq_Wire_ChunkResponse()
        response.id = id
        response.data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ size) })
        response.error = error
        return response
    }

    private func slowDecode(_ payload: [UInt8]) -> Ubiq_Wire_Envelope? {
        var options = BinaryDecodingOptions()
        options.discardUnknownFields = true
        guard let envelope = try? Ubiq_Wire_Envelope(serializedBytes: payload, options: options), envelope.message != nil else { return nil }
        return envelope
    }

    private func buffer(_ bytes: [UInt8]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return buffer
    }

    @Test func aFrameHoldsWhatSwiftProtobufWouldWrite() throws {
        for id in Self.ids {
            for size in Self.sizes {
                for error in Self.errors {
                    let envelope = Ubiq_Wire_Envelope(.chunkResponse(response(id: id, size: size, error: error)))
                    let frame = Array(envelope.frame().frame.readableBytesView)
                    let expected: [UInt8] = try envelope.serializedBytes()
                    #expect(Array(frame.prefix(4)) == [UInt8(expected.count >> 24), UInt8(truncatingIfNeeded: expected.count >> 16),
                                                       UInt8(truncatingIfNeeded: expected.count >> 8), UInt8(truncatingIfNeeded: expected.count)])
                    #expect(Array(frame.dropFirst(4)) == expected, "id \(id), \(size) bytes, error \(error)")
                }
            }
        }
    }

    @Test func aCanonicalResponseDecodesAsSwiftProtobufDecodesIt() throws {
        for id in Self.ids {
            for size in Self.sizes {
                for error in Self.errors {
                    let envelope = Ubiq_Wire_Envelope(.chunkResponse(response(id: id, size: size, error: error)))
                    let payload: [UInt8] = try envelope.serializedBytes()
                    let decoded = try Ubiq_Wire_Envelope(payload: buffer(payload))
                    #expect(decoded == slowDecode(payload), "id \(id), \(size) bytes, error \(error)")
                }
            }
        }
    }

    /// The chunk bytes are read where they arrived, and stay readable after the frame's
    /// buffer is let go.
    @Test func theChunkBytesAreNotCopied() throws {
        let sent = response(id: 9, size: 70_000, error: .none)
        var payload: ByteBuffer? = buffer(try Ubiq_Wire_Envelope(.chunkResponse(sent)).serializedBytes())
        let range = payload!.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress!)..<UInt(bitPattern: $0.baseAddress! + $0.count) }
        let decoded = try Ubiq_Wire_Envelope(payload: payload!)
        payload = nil
        guard case .chunkResponse(let received) = decoded.message else {
            Issue.record("not a chunk response: \(decoded)")
            return
        }
        let start = received.data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress!) }
        #expect(range.contains(start))
        #expect(received.data == sent.data)
    }

    /// What a peer may send that is not the canonical form: fields out of order or repeated,
    /// fields this version does not know, long varints, a second envelope field, cut-off
    /// input. Each decodes exactly as SwiftProtobuf decodes it, or fails as it does.
    @Test func otherEncodingsDecodeAsSwiftProtobufDecodesThem() throws {
        let data: [UInt8] = [0x12, 3, 1, 2, 3]
        let other: [UInt8] = [0x12, 2, 9, 9]
        let inners: [[UInt8]] = [
            [0x18, 1] + data + [0x08, 5],
            [0x08, 5] + other + data,
            [0x08, 5, 0x08, 6] + data,
            [0x08, 5] + data + [0x28, 1],
            [0x08, 5] + data + [0x32, 1, 0],
            [0x08, 0x85, 0x80, 0x00] + data,
            [0x08, 5] + data + [0x18, 0xAC, 0x02],
            [0x08, 5] + data + [0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
            [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F] + data,
            [0x08, 5, 0x12, 9, 1, 2],
            [0x08],
            [],
        ]
        var payloads: [[UInt8]] = []
        for inner in inners {
            payloads.append([0x22, UInt8(inner.count)] + inner)
            payloads.append([0x22, UInt8(inner.count)] + inner + [0x22, 2, 0x08, 7])
            payloads.append([0x22, UInt8(inner.count)] + inner + [0x3A, 0])
            payloads.append([0x22, UInt8(inner.count + 1)] + inner)
            payloads.append([0x22, 0x80 | UInt8(inner.count), 0] + inner)
        }
        for payload in payloads {
            let fast = try? Ubiq_Wire_Envelope(payload: buffer(payload))
            #expect(fast == slowDecode(payload), "payload \(payload)")
        }
    }
}
