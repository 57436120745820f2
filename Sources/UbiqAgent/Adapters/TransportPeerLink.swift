import NIOCore
import UbiqModel
import UbiqSync
import UbiqTransport
import UbiqWire

/// Presents a TLS peer connection to the engine as a `PeerLink` of protobuf envelopes.
struct TransportPeerLink: PeerLink {
    let connection: PeerConnection
    let isOutgoing: Bool
    /// The agent's bandwidth limits, which every frame passes.
    let limits: BandwidthLimits

    var remoteDevice: DeviceID { connection.remoteDeviceID }
    var remoteAddress: String { connection.remoteAddress }
    var bytesSent: UInt64 { UInt64(connection.bytesSent) }
    var bytesReceived: UInt64 { UInt64(connection.bytesReceived) }

    func send(_ envelope: Ubiq_Wire_Envelope) async throws {
        let frame = envelope.frame()
        try await limits.sending(frame.count + FrameCodec.headerLength, to: remoteDevice)
        try await connection.send(frame)
    }

    /// Frames are read from the connection only as the session asks for envelopes, so a peer
    /// that sends faster than this device takes its messages in waits on TCP instead of
    /// filling memory.
    func envelopes() -> AsyncThrowingStream<Ubiq_Wire_Envelope, any Error> {
        let frames = FrameReader(connection.frames.makeAsyncIterator())
        let (limits, device) = (limits, remoteDevice)
        return AsyncThrowingStream {
            guard let frame = try await frames.next() else { return nil }
            try await limits.receiving(frame.readableBytes + FrameCodec.headerLength, from: device)
            return try Ubiq_Wire_Envelope(payload: frame)
        }
    }

    func close() async {
        await connection.close()
    }
}

/// The one iterator of a connection's frames, for the one session that reads them.
private final class FrameReader: @unchecked Sendable {
    private var iterator: PeerFrames.AsyncIterator

    init(_ iterator: PeerFrames.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> ByteBuffer? { try await iterator.next() }
}
