#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore
import NIOPosix
import Synchronization
import UbiqControlAPI

/// The agent's local control socket (DESIGN.md §5): JSON-RPC 2.0, one message per line,
/// over a Unix socket that only the agent's own user may use.
///
/// The socket's folder is created 0700 and must belong to the agent's user; the socket is
/// made 0600; each connection's peer uid (SO_PEERCRED) must equal ``Configuration/allowedUID``.
/// A bad line gets an error answer and the connection stays usable; a line longer than
/// ``Configuration/maximumLineLength`` gets an error and closes only that connection.
public final class ControlServer: Sendable {
    public struct Configuration: Sendable {
        public var socketPath: String
        /// Longest accepted request line, in bytes.
        public var maximumLineLength: Int
        /// The only uid allowed to connect; the agent's own by default.
        public var allowedUID: UInt32
        /// How long requests still running when a client stops sending may take to answer
        /// before they are cancelled.
        public var drainTimeout: Duration
        public var eventLoopGroup: any EventLoopGroup

        public init(
            socketPath: String, maximumLineLength: Int = 8 << 20, allowedUID: UInt32 = getuid(),
            drainTimeout: Duration = .seconds(10), eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
        ) {
            self.socketPath = socketPath
            self.maximumLineLength = maximumLineLength
            self.allowedUID = allowedUID
            self.drainTimeout = drainTimeout
            self.eventLoopGroup = eventLoopGroup
        }
    }

    private enum ListenState {
        case starting([CheckedContinuation<Void, any Error>])
        case listening
        case ended(any Error)
    }

    public let configuration: Configuration
    private let handler: any ControlHandler
    private let logger: Logger
    private let listenState = Mutex(ListenState.starting([]))
    private let connectionCount = Atomic<UInt64>(0)

    public init(configuration: Configuration, handler: any ControlHandler, logger: Logger) {
        self.configuration = configuration
        self.handler = handler
        var logger = logger
        logger[metadataKey: "control-socket"] = "\(configuration.socketPath)"
        self.logger = logger
    }

    /// Returns once the socket accepts connections; throws if ``run()`` failed or ended first.
    public func waitUntilListening() async throws {
        try await withCheckedThrowingContinuation { continuation in
            let outcome: Result<Void, any Error>? = listenState.withLock { state in
                switch state {
                case .starting(var waiters):
                    waiters.append(continuation)
                    state = .starting(waiters)
                    return nil
                case .listening: return .success(())
                case .ended(let error): return .failure(error)
                }
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    private func setListenState(_ new: ListenState) {
        let waiters = listenState.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard case .starting(let waiters) = state else {
                if case .listening = state, case .ended = new { state = new }
                return []
            }
            state = new
            return waiters
        }
        for waiter in waiters {
            switch new {
            case .ended(let error): waiter.resume(throwing: error)
            default: waiter.resume()
            }
        }
    }

    /// Serves until the task is cancelled, then closes the listener and removes the socket.
    public func run() async throws {
        do {
            try await serve()
            setListenState(.ended(ControlServerError(.stopped, "the control server has stopped")))
        } catch {
            setListenState(.ended(error))
            throw error
        }
    }

    private func serve() async throws {
        let location = SocketLocation(socketPath: configuration.socketPath, uid: configuration.allowedUID)
        try location.prepareFolder(logger: logger)
        if try location.existing() == .socket { try await refuseIfAnswering() }

        let maximumLineLength = configuration.maximumLineLength
        let unclaimed = UnclaimedConnections()
        let listener: NIOAsyncChannel<AcceptedConnection, Never>
        do {
            listener = try await ServerBootstrap(group: configuration.eventLoopGroup)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .bind(unixDomainSocketPath: configuration.socketPath, cleanupExistingSocketFile: true) { channel in
                    // NIO leaves a child whose initializer fails open, so close it here.
                    PeerCredentials.read(from: channel)
                        .map { Optional($0) }
                        .recover { _ in nil }
                        .flatMapThrowing { peer in
                            guard unclaimed.register(channel) else { throw ChannelError.ioOnClosedChannel }
                            try channel.pipeline.syncOperations.addHandler(
                                ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineLength)))
                            let wrapped = try NIOAsyncChannel<ControlFrame, Never>(wrappingChannelSynchronously: channel)
                            return AcceptedConnection(channel: wrapped, peer: peer)
                        }
                        .flatMapErrorThrowing { error in
                            channel.close(promise: nil)
                            throw error
                        }
                }
        } catch {
            throw ControlServerError(.bindFailed, "cannot listen on \(configuration.socketPath): \(error)")
        }
        let identity: SocketIdentity
        do {
            identity = try location.secureSocket()
        } catch {
            try? await listener.channel.close()
            throw error
        }
        defer { location.remove(ifStill: identity) }

        logger.info("control socket listening")
        setListenState(.listening)
        // Cancelling a task that iterates a server NIOAsyncChannel drops connections accepted
        // but not yet handed out, and NIO traps on their unfinished writers
        // (apple/swift-nio#2813). So the accept loop runs in a task that cancellation does not
        // reach: cancellation closes the listener instead, the loop takes every connection
        // still buffered, then the connections are cancelled together.
        let acceptLoop = Task {
            defer { unclaimed.stop() }
            try await self.acceptConnections(from: listener, unclaimed: unclaimed)
        }
        try await withTaskCancellationHandler {
            try await acceptLoop.value
        } onCancel: {
            listener.channel.close(promise: nil)
        }
        logger.info("control socket closed")
    }

    private func acceptConnections(
        from listener: NIOAsyncChannel<AcceptedConnection, Never>, unclaimed: UnclaimedConnections
    ) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            defer { group.cancelAll() }
            try await listener.executeThenClose { inbound in
                for try await connection in inbound {
                    unclaimed.claim(connection.channel.channel)
                    let id = connectionCount.add(1, ordering: .relaxed).newValue
                    group.addTask { await self.serve(connection, id: id) }
                }
            }
        }
    }

    /// An existing socket may be a live agent's: refuse to take it over; remove it if stale.
    private func refuseIfAnswering() async throws(ControlServerError) {
        let probe = try? await ClientBootstrap(group: configuration.eventLoopGroup)
            .connect(unixDomainSocketPath: configuration.socketPath).get()
        guard let probe else { return }
        try? await probe.close()
        throw ControlServerError(
            .alreadyRunning, "another agent is listening on \(configuration.socketPath); stop it first or use another --socket")
    }

    private func serve(_ accepted: AcceptedConnection, id: UInt64) async {
        var logger = logger
        logger[metadataKey: "control-connection"] = "\(id)"
        if let peer = accepted.peer {
            logger[metadataKey: "peer-pid"] = "\(peer.pid)"
            logger[metadataKey: "peer-uid"] = "\(peer.uid)"
        }
        let unknownPeer = PeerCredentials(pid: 0, uid: .max, gid: .max)
        let connection = ControlConnection(
            id: id, peer: accepted.peer ?? unknownPeer, channel: accepted.channel.channel, logger: logger)
        do {
            try await accepted.channel.executeThenClose { inbound in
                guard let peer = accepted.peer, peer.uid == configuration.allowedUID else {
                    logger.warning("refused a control connection from another user")
                    await connection.send(RPCResponse(id: nil, error: RPCError(
                        .permissionDenied, "only uid \(configuration.allowedUID) may use this agent's control socket")))
                    await connection.linger(reading: inbound)
                    return
                }
                logger.debug("control connection opened")
                await ConnectionSession(
                    connection: connection, handler: handler, drainTimeout: configuration.drainTimeout,
                    maximumLineLength: configuration.maximumLineLength
                ).run(inbound)
                logger.debug("control connection closed")
            }
        } catch {
            logger.debug("control connection failed", metadata: ["error": "\(error)"])
        }
        await connection.runCleanups()
    }
}

/// What the child channel initializer hands to the accept loop.
struct AcceptedConnection: Sendable {
    var channel: NIOAsyncChannel<ControlFrame, Never>
    /// Nil when the kernel would not say who connected; such connections are refused.
    var peer: PeerCredentials?
}
