import NIOCore
import SwiftProtobuf

/// Encoding of one `Envelope` into a frame payload and back. Unknown fields are ignored,
/// as the protocol requires; a payload that is not an envelope is a `WireError`.
extension Ubiq_Wire_Envelope {
    public static let maxFrameSize = 16 * 1024 * 1024

    public init(_ message: OneOf_Message) {
        self.init()
        self.message = message
    }

    public init(payload: [UInt8]) throws(WireError) {
        let result: Result<Self, WireError> = payload.withUnsafeBytes { bytes in
            Result { () throws(WireError) in try Self(rawPayload: bytes) }
        }
        self = try result.get()
    }

    /// Decodes a received frame's payload where it lies, without copying it out first. A
    /// chunk response's bytes are not copied at all (``ChunkResponseCoding``).
    public init(payload: ByteBuffer) throws(WireError) {
        if let response = ChunkResponseCoding.decode(payload) {
            self.init(.chunkResponse(response))
            return
        }
        let result: Result<Self, WireError> = payload.withUnsafeReadableBytes { bytes in
            Result { () throws(WireError) in try Self(rawPayload: bytes) }
        }
        self = try result.get()
    }

    private init(rawPayload bytes: UnsafeRawBufferPointer) throws(WireError) {
        do {
            var options = BinaryDecodingOptions()
            options.discardUnknownFields = true
            try self.init(serializedBytes: RawSpan(_unsafeBytes: bytes), options: options)
        } catch {
            throw WireError(.malformed, "frame is not a valid Envelope: \(error)")
        }
        guard message != nil else { throw WireError(.unexpectedMessage, "envelope carries no message this version knows") }
    }

    public func payload() -> [UInt8] {
        (try? serializedBytes()) ?? []
    }

    /// The whole frame of this envelope, length header included, serialized straight into
    /// the buffer that goes to TLS.
    public func frame() -> FramedBytes {
        if case .chunkResponse(let response) = message, unknownFields.data.isEmpty, response.unknownFields.data.isEmpty,
           response.zeroRuns.isEmpty {
            return ChunkResponseCoding.frame(of: response)
        }
        return (try? serializedBytes()) ?? FramedBytes(repeating: 0, count: 0)
    }
}
