import Synchronization
import UbiqModel
import UbiqSync
import UbiqWire

/// Why a simulated connection ended.
public struct SimLinkClosed: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { "simulated link closed: \(reason)" }
}

/// One end of a simulated connection between two devices: messages arrive in order, each
/// after a delay the seed picks, until either end closes it or the simulator cuts it (a
/// reset or a partition), which drops whatever is still on the way.
public final class SimLink: PeerLink, Sendable {
    public let remoteDevice: DeviceID
    public let remoteAddress: String
    public let isOutgoing: Bool
    private let connection: SimConnection
    /// 0 for the dialing end, 1 for the accepting end.
    private let side: Int

    init(connection: SimConnection, side: Int, remoteDevice: DeviceID) {
        self.connection = connection
        self.side = side
        self.remoteDevice = remoteDevice
        self.remoteAddress = "sim:\(connection.id)"
        self.isOutgoing = side == 0
    }

    public var bytesSent: UInt64 { connection.bytes(from: side) }
    public var bytesReceived: UInt64 { connection.bytes(from: 1 - side) }

    public func send(_ envelope: Ubiq_Wire_Envelope) async throws {
        try connection.send(envelope, from: side)
    }

    public func envelopes() -> AsyncThrowingStream<Ubiq_Wire_Envelope, any Error> { connection.inbox(of: side) }

    public func close() async { connection.close(reason: "closed by an end") }
}

/// Both directions of a simulated connection and what is in flight on them.
final class SimConnection: Sendable {
    let id: Int
    private let scheduler: SimScheduler
    private let inboxes: [AsyncThrowingStream<Ubiq_Wire_Envelope, any Error>]
    private let continuations: [AsyncThrowingStream<Ubiq_Wire_Envelope, any Error>.Continuation]

    private struct State {
        var closed = false
        /// Per direction: when the last message sent arrives, so later ones arrive after it.
        var lastArrival: [Duration] = [.zero, .zero]
        var bytes: [UInt64] = [0, 0]
    }

    private let state = Mutex(State())
    /// The delay of each message, chosen per message by the seed within this range.
    private let latency: ClosedRange<Int>

    init(id: Int, scheduler: SimScheduler, latencyMicroseconds: ClosedRange<Int>) {
        self.id = id
        self.scheduler = scheduler
        self.latency = latencyMicroseconds
        let a = AsyncThrowingStream<Ubiq_Wire_Envelope, any Error>.makeStream()
        let b = AsyncThrowingStream<Ubiq_Wire_Envelope, any Error>.makeStream()
        inboxes = [a.stream, b.stream]
        continuations = [a.continuation, b.continuation]
    }

    func inbox(of side: Int) -> AsyncThrowingStream<Ubiq_Wire_Envelope, any Error> { inboxes[side] }

    func bytes(from side: Int) -> UInt64 { state.withLock { $0.bytes[side] } }

    var isClosed: Bool { state.withLock { $0.closed } }

    func send(_ envelope: Ubiq_Wire_Envelope, from side: Int) throws {
        let delay = Duration.microseconds(latency.lowerBound + scheduler.draw(below: latency.count))
        let now = scheduler.now
        let wait: Duration? = state.withLock { state in
            guard !state.closed else { return nil }
            let arrival = max(now + delay, state.lastArrival[side])
            state.lastArrival[side] = arrival
            state.bytes[side] += UInt64(Self.size(of: envelope))
            return arrival - now
        }
        guard let wait else { throw SimLinkClosed(reason: "connection \(id) is closed") }
        let receiver = continuations[1 - side]
        scheduler.after(wait) { [self] in
            guard !isClosed else { return }
            receiver.yield(envelope)
        }
    }

    /// Ends both directions; messages on the way are lost.
    func close(reason: String) {
        let first = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        for continuation in continuations { continuation.finish(throwing: SimLinkClosed(reason: reason)) }
    }

    private static func size(of envelope: Ubiq_Wire_Envelope) -> Int {
        if case .chunkResponse(let response)? = envelope.message { return response.data.count + 64 }
        return 64
    }
}
