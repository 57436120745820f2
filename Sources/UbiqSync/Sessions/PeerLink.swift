import UbiqModel
import UbiqWire

/// An authenticated connection to a peer device, as the engine needs it. The transport
/// implements it over TLS; the engine never sees sockets.
public protocol PeerLink: Sendable {
    /// The device the peer's certificate proved.
    var remoteDevice: DeviceID { get }
    var remoteAddress: String { get }
    /// True for a connection this device dialed.
    var isOutgoing: Bool { get }
    var bytesSent: UInt64 { get }
    var bytesReceived: UInt64 { get }
    func send(_ envelope: Ubiq_Wire_Envelope) async throws
    /// The peer's messages, in order; one consumer only. Ends when the connection ends.
    func envelopes() -> AsyncThrowingStream<Ubiq_Wire_Envelope, any Error>
    func close() async
}
