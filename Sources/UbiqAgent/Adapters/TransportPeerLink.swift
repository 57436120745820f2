import UbiqModel
import UbiqSync
import UbiqTransport
import UbiqWire

/// Presents a TLS peer connection to the engine as a `PeerLink` of protobuf envelopes.
struct TransportPeerLink: PeerLink {
    let connection: PeerConnection
    let isOutgoing: Bool

    var remoteDevice: DeviceID { connection.remoteDeviceID }
    var remoteAddress: String { connection.remoteAddress }
    var bytesSent: UInt64 { UInt64(connection.bytesSent) }
    var bytesReceived: UInt64 { UInt64(connection.bytesReceived) }

    func send(_ envelope: Ubiq_Wire_Envelope) async throws {
        try await connection.send(envelope.payload())
    }

    func envelopes() -> AsyncThrowingStream<Ubiq_Wire_Envelope, any Error> {
        let frames = connection.frames
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await frame in frames {
                        continuation.yield(try Ubiq_Wire_Envelope(payload: frame))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func close() async {
        await connection.close()
    }
}
