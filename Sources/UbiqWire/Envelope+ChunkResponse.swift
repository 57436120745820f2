import Foundation
import NIOCore

/// The chunk response, which carries nearly every byte of a transfer, encoded and decoded
/// by hand so that its chunk bytes are copied once on each side instead of twice.
///
/// Sending, the frame is written as SwiftProtobuf would write it, without first zeroing a
/// buffer of the frame's size for the encoder to overwrite. Receiving, the chunk bytes stay
/// in the frame's buffer: `data` is a `Data` that refers to them and keeps the buffer alive.
///
/// Only the canonical form takes the fast path when decoding: an envelope holding nothing
/// but the response, each of its three fields at most once, the error a one-byte value.
/// Anything else goes through SwiftProtobuf, so the two decoders cannot disagree.
/// Protocol Buffers encoding: https://protobuf.dev/programming-guides/encoding/
enum ChunkResponseCoding {
    /// Tags: field number << 3 | wire type (0 varint, 2 length-delimited).
    static let envelopeTag: UInt8 = 4 << 3 | 2
    static let idTag: UInt8 = 1 << 3 | 0
    static let dataTag: UInt8 = 2 << 3 | 2
    static let errorTag: UInt8 = 3 << 3 | 0

    /// The frame of an envelope holding `response`: header, then the same bytes as
    /// `serializedBytes()`.
    static func frame(of response: Ubiq_Wire_ChunkResponse) -> FramedBytes {
        let error = UInt64(bitPattern: Int64(response.error.rawValue))
        let inner = (response.id == 0 ? 0 : 1 + varintSize(response.id))
            + (response.data.isEmpty ? 0 : 1 + varintSize(UInt64(response.data.count)) + response.data.count)
            + (error == 0 ? 0 : 1 + varintSize(error))
        let payload = 1 + varintSize(UInt64(inner)) + inner
        var frame = ByteBufferAllocator().buffer(capacity: FrameCodec.headerLength + payload)
        frame.writeInteger(UInt32(truncatingIfNeeded: payload), endianness: .big)
        frame.writeInteger(envelopeTag)
        writeVarint(UInt64(inner), to: &frame)
        if response.id != 0 {
            frame.writeInteger(idTag)
            writeVarint(response.id, to: &frame)
        }
        if !response.data.isEmpty {
            frame.writeInteger(dataTag)
            writeVarint(UInt64(response.data.count), to: &frame)
            frame.writeBytes(response.data)
        }
        if error != 0 {
            frame.writeInteger(errorTag)
            writeVarint(error, to: &frame)
        }
        return FramedBytes(frame: frame)
    }

    /// The response a payload in canonical form holds, its bytes left where they are; nil
    /// for anything else, which SwiftProtobuf then decodes.
    static func decode(_ payload: ByteBuffer) -> Ubiq_Wire_ChunkResponse? {
        var reader = payload
        guard reader.readInteger(as: UInt8.self) == envelopeTag,
              let inner = readVarint(&reader), inner == UInt64(reader.readableBytes)
        else { return nil }
        var response = Ubiq_Wire_ChunkResponse()
        var seen: UInt8 = 0  // bit n: field n was read
        while let tag = reader.readInteger(as: UInt8.self) {
            let field: UInt8 = 1 << (tag >> 3 & 7)
            guard seen & field == 0 else { return nil }
            seen |= field
            switch tag {
            case idTag:
                guard let id = readVarint(&reader) else { return nil }
                response.id = id
            case dataTag:
                guard let count = readVarint(&reader), count <= UInt64(reader.readableBytes),
                      let bytes = reader.readSlice(length: Int(count))
                else { return nil }
                response.data = data(referringTo: bytes)
            case errorTag:
                guard let raw = reader.readInteger(as: UInt8.self), raw < 0x80 else { return nil }
                response.error = Ubiq_Wire_ChunkError(rawValue: Int(raw)) ?? .UNRECOGNIZED(Int(raw))
            default:
                return nil
            }
        }
        return response
    }

    /// A `Data` over a buffer's readable bytes that holds on to the buffer's memory until it
    /// is let go itself.
    private static func data(referringTo buffer: ByteBuffer) -> Data {
        guard buffer.readableBytes > 0 else { return Data() }
        return buffer.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            _ = storage.retain()
            return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count,
                        deallocator: .custom { _, _ in storage.release() })
        }
    }

    static func varintSize(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    static func writeVarint(_ value: UInt64, to buffer: inout ByteBuffer) {
        var value = value
        while value >= 0x80 {
            buffer.writeInteger(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        buffer.writeInteger(UInt8(value))
    }

    /// A varint of at most ten bytes that fits in 64 bits; nil otherwise.
    static func readVarint(_ buffer: inout ByteBuffer) -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: UInt64(0), to: 70, by: 7) {
            guard let byte = buffer.readInteger(as: UInt8.self) else { return nil }
            if shift == 63 && byte > 1 { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
        }
        return nil
    }
}
