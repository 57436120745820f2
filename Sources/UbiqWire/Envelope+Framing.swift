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
        do {
            var options = BinaryDecodingOptions()
            options.discardUnknownFields = true
            try self.init(serializedBytes: payload, options: options)
        } catch {
            throw WireError(.malformed, "frame is not a valid Envelope: \(error)")
        }
        guard message != nil else { throw WireError(.unexpectedMessage, "envelope carries no message this version knows") }
    }

    public func payload() -> [UInt8] {
        (try? serializedBytes()) ?? []
    }
}
