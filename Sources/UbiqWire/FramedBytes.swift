import NIOCore
import SwiftProtobuf

/// A frame built in one buffer: the length header, then room for the payload. An envelope
/// serialized into it (`serializedBytes()` as `FramedBytes`) is written where it is sent
/// from, instead of being serialized, copied into a buffer, then copied again behind a header.
public struct FramedBytes: SwiftProtobufContiguousBytes {
    /// The whole frame: header and payload.
    public private(set) var frame: ByteBuffer

    public init(repeating byte: UInt8, count: Int) {
        frame = ByteBufferAllocator().buffer(capacity: FrameCodec.headerLength + count)
        frame.writeInteger(UInt32(truncatingIfNeeded: count), endianness: .big)
        frame.writeRepeatingByte(byte, count: count)
    }

    public init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
        let payload = Array(sequence)
        frame = ByteBufferAllocator().buffer(capacity: FrameCodec.headerLength + payload.count)
        frame.writeInteger(UInt32(truncatingIfNeeded: payload.count), endianness: .big)
        frame.writeBytes(payload)
    }

    /// A frame written by hand, header included.
    init(frame: ByteBuffer) {
        self.frame = frame
    }

    /// The payload's length.
    public var count: Int { frame.readableBytes - FrameCodec.headerLength }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try frame.withUnsafeReadableBytes { try body(UnsafeRawBufferPointer(rebasing: $0[FrameCodec.headerLength...])) }
    }

    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try frame.withUnsafeMutableReadableBytes { try body(UnsafeMutableRawBufferPointer(rebasing: $0[FrameCodec.headerLength...])) }
    }
}
