import Logging
import NIOCore
import Synchronization
import UbiqControlAPI

/// One client's connection, as handlers see it: push notifications to that client and tie
/// resources (leases, subscriptions) to its lifetime with ``onClose(_:)``.
public final class ControlConnection: Sendable {
    /// Unique within one server run; also in the logger's metadata as `control-connection`.
    public let id: UInt64
    public let peer: PeerCredentials
    /// The server's logger with this connection's metadata.
    public let logger: Logger

    private let channel: any Channel
    /// Nil once the connection has ended and its cleanups ran.
    private let cleanups = Mutex<[@Sendable () async -> Void]?>([])
    private let attachments = Mutex<[ObjectIdentifier: any Sendable]>([:])

    init(id: UInt64, peer: PeerCredentials, channel: any Channel, logger: Logger) {
        self.id = id
        self.peer = peer
        self.channel = channel
        self.logger = logger
    }

    /// Sends a notification to this client.
    public func notify(method: String, params: JSONValue? = nil) async throws(ControlServerError) {
        try await send(RPCNotification(method: method, params: params).json)
    }

    /// Runs `cleanup` when the connection ends (cleanups run newest first). If it has already
    /// ended, runs it now.
    public func onClose(_ cleanup: @escaping @Sendable () async -> Void) async {
        let registered = cleanups.withLock { list -> Bool in
            guard list != nil else { return false }
            list!.append(cleanup)
            return true
        }
        if !registered { await cleanup() }
    }

    /// The connection's one object of type `T` (what a handler keeps per client, such as
    /// its presenters), made by `create` on first use; `created` says whether this call made it.
    public func attachment<T: AnyObject & Sendable>(_ type: T.Type, create: () -> T) -> (value: T, created: Bool) {
        attachments.withLock { table in
            if let existing = table[ObjectIdentifier(type)] as? T { return (existing, false) }
            let made = create()
            table[ObjectIdentifier(type)] = made
            return (made, true)
        }
    }

    /// Whether the connection has ended.
    public var isClosed: Bool { cleanups.withLock { $0 == nil } }

    /// Writes one line and returns once it has reached the socket, so closing the connection
    /// afterwards cannot drop it (an `NIOAsyncChannel` writer returns before that,
    /// apple/swift-nio#2795).
    func send(_ message: JSONValue) async throws(ControlServerError) {
        var buffer = ByteBuffer(string: message.serialized())
        buffer.writeInteger(UInt8(ascii: "\n"))
        do {
            try await channel.writeAndFlush(buffer)
        } catch {
            throw ControlServerError(.connectionClosed, "control connection \(id) is closed: \(error)")
        }
    }

    /// Answers one request; a client that went away is only logged.
    func send(_ response: RPCResponse) async {
        do {
            try await send(response.json)
        } catch {
            logger.debug("could not answer a control request", metadata: ["rpc-id": "\(response.id?.description ?? "null")", "error": "\(error)"])
        }
    }

    /// How long a connection the server gives up on may still send before it is cut off.
    static let lingerTime = Duration.seconds(2)

    /// Ends a connection the server gives up on without cutting off its last answer: closes
    /// the output, then reads and discards input until the client closes or ``lingerTime``
    /// passes. (Closing outright would make a client that is still writing fail with EPIPE
    /// or ECONNRESET before it reads why.)
    func linger(reading inbound: NIOAsyncChannelInboundStream<ControlFrame>) async {
        await closeOutput()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.close(after: Self.lingerTime) }
            do {
                for try await _ in inbound {}
            } catch {}
            group.cancelAll()
        }
    }

    func closeOutput() async {
        try? await channel.close(mode: .output)
    }

    /// Closes the connection after `delay` unless the task is cancelled first.
    func close(after delay: Duration) async {
        guard (try? await Task.sleep(for: delay)) != nil else { return }
        try? await channel.close()
    }

    func runCleanups() async {
        let list = cleanups.withLock { list in
            defer { list = nil }
            return list ?? []
        }
        for cleanup in list.reversed() { await cleanup() }
    }
}
