#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import UbiqControlAPI

/// A JSON-RPC connection to the local agent's control socket.
///
/// Calls may run concurrently; answers are matched by id. Notifications the agent pushes
/// arrive on ``notifications`` in order. Call ``close()`` when done (or use
/// ``withConnection(socketPath:maximumLineLength:_:)``): an open connection keeps its
/// reader running.
public actor UbiqConnection {
    private enum Call {
        /// Sent; the continuation is set once the caller waits.
        case waiting(CheckedContinuation<JSONValue, any Error>?)
        /// Answered before the caller started waiting.
        case answered(Result<JSONValue, any Error>)
    }

    public nonisolated let socketPath: String
    /// Notifications from the agent; finishes when the connection closes.
    public nonisolated let notifications: AsyncStream<RPCNotification>

    private let channel: NIOAsyncChannel<ControlFrame, ByteBuffer>
    private let notificationSink: AsyncStream<RPCNotification>.Continuation
    private var outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>?
    private var calls: [RPCID: Call] = [:]
    private var nextID: Int64 = 1
    private var closeReason: (any Error)?
    private var reader: Task<Void, Never>?

    private init(socketPath: String, channel: NIOAsyncChannel<ControlFrame, ByteBuffer>) {
        self.socketPath = socketPath
        self.channel = channel
        (notifications, notificationSink) = AsyncStream.makeStream(of: RPCNotification.self)
    }

    /// Connects to the agent listening on `socketPath`.
    ///
    /// - Parameter maximumLineLength: the longest answer accepted, in bytes.
    public static func connect(
        socketPath: String, maximumLineLength: Int = 256 << 20,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(UbiqClientError) -> UbiqConnection {
        let channel: NIOAsyncChannel<ControlFrame, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: eventLoopGroup)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineLength)))
                        return try NIOAsyncChannel<ControlFrame, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw Self.connectError(error, socketPath: socketPath)
        }
        let connection = UbiqConnection(socketPath: socketPath, channel: channel)
        await connection.start()
        return connection
    }

    /// Connects, runs `body`, and closes the connection however `body` ends.
    public static func withConnection<Result: Sendable>(
        socketPath: String, maximumLineLength: Int = 256 << 20,
        _ body: (UbiqConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await connect(socketPath: socketPath, maximumLineLength: maximumLineLength)
        do {
            let result = try await body(connection)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    private static func connectError(_ error: any Error, socketPath: String) -> UbiqClientError {
        if let error = error as? SocketAddressError, case .unixDomainSocketPathTooLong = error {
            return UbiqClientError(.invalidSocketPath, "the socket path \(socketPath) is too long for a Unix socket")
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case EACCES, EPERM:
                return UbiqClientError(
                    .permissionDenied, "may not use the agent's socket at \(socketPath); is it another user's agent?")
            case ENOENT, ECONNREFUSED, ENOTDIR:
                return UbiqClientError(.agentNotRunning, "is ubiqd running? no agent answers on the socket at \(socketPath)")
            default:
                break
            }
        }
        return UbiqClientError(.agentNotRunning, "is ubiqd running? cannot connect to the socket at \(socketPath): \(error)")
    }

    private func start() async {
        await withCheckedContinuation { (ready: CheckedContinuation<Void, Never>) in
            reader = Task { await self.read(signalling: ready) }
        }
    }

    private func read(signalling ready: CheckedContinuation<Void, Never>) async {
        var signalled = false
        do {
            try await channel.executeThenClose { inbound, outbound in
                self.outbound = outbound
                signalled = true
                ready.resume()
                for try await frame in inbound {
                    guard receive(frame) else { break }
                }
            }
        } catch {
            if closeReason == nil {
                closeReason = UbiqClientError(.connectionClosed, "the connection to the agent failed: \(error)")
            }
        }
        if !signalled { ready.resume() }
        finish()
    }

    /// Handles one line; false when the connection must end.
    private func receive(_ frame: ControlFrame) -> Bool {
        guard case .line(let buffer) = frame else {
            closeReason = UbiqClientError(.invalidResponse, "the agent sent a line longer than this client accepts")
            return false
        }
        switch RPCServerMessage(line: buffer.readableBytesView) {
        case .notification(let notification):
            notificationSink.yield(notification)
        case .response(let response):
            guard let id = response.id else {
                if case .error(let error) = response.outcome { closeReason = error }
                return true
            }
            let result: Result<JSONValue, any Error> = switch response.outcome {
            case .result(let value): .success(value)
            case .error(let error): .failure(error)
            }
            switch calls[id] {
            case .waiting(let continuation?):
                calls[id] = nil
                continuation.resume(with: result)
            case .waiting(nil):
                calls[id] = .answered(result)
            case .answered, nil:
                break
            }
        case nil:
            closeReason = UbiqClientError(.invalidResponse, "the agent sent a line that is not JSON-RPC 2.0")
            return false
        }
        return true
    }

    private func finish() {
        outbound = nil
        let reason = closeReason ?? UbiqClientError(.connectionClosed, "the agent closed the connection")
        closeReason = reason
        for (id, call) in calls {
            switch call {
            case .waiting(let continuation?):
                calls[id] = nil
                continuation.resume(throwing: reason)
            case .waiting(nil):
                calls[id] = .answered(.failure(reason))
            case .answered:
                break
            }
        }
        notificationSink.finish()
    }

    /// Calls `method` and returns its result; throws the agent's `RPCError`, or a
    /// ``UbiqClientError`` when the connection fails.
    public func call(_ method: String, params: JSONValue? = nil) async throws -> JSONValue {
        try await send(method, params: params)
    }

    private func send(_ method: String, params: JSONValue?) async throws -> JSONValue {
        try Task.checkCancellation()
        guard let outbound else { throw closeReason ?? UbiqClientError(.connectionClosed, "the connection is closed") }
        let id = RPCID.number(nextID)
        nextID += 1
        var line = ByteBuffer(string: RPCRequest(id: id, method: method, params: params).json.serialized())
        line.writeInteger(UInt8(ascii: "\n"))
        calls[id] = .waiting(nil)
        do {
            try await outbound.write(line)
        } catch {
            calls[id] = nil
            try Task.checkCancellation()
            throw closeReason ?? UbiqClientError(.connectionClosed, "cannot send to the agent: \(error)")
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                switch calls[id] {
                case .answered(let result):
                    calls[id] = nil
                    continuation.resume(with: result)
                case .waiting:
                    calls[id] = .waiting(continuation)
                case nil:
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
    }

    private func abandon(_ id: RPCID) {
        guard case .waiting(let continuation) = calls[id] else { return }
        calls[id] = nil
        continuation?.resume(throwing: CancellationError())
    }

    /// Calls `method` with typed params and decodes its result.
    public func call<Params: Encodable & Sendable, Result: Decodable>(
        _ method: String, params: Params, as type: Result.Type = Result.self
    ) async throws -> Result {
        let json: JSONValue
        do {
            json = try JSONValue(encoding: params)
        } catch {
            throw UbiqClientError(.invalidResponse, "cannot encode the params of \(method): \(error)")
        }
        return try Self.decode(try await send(method, params: json), as: type, method: method)
    }

    /// Calls `method` without params and decodes its result.
    public func call<Result: Decodable>(_ method: String, as type: Result.Type = Result.self) async throws -> Result {
        try Self.decode(try await send(method, params: nil), as: type, method: method)
    }

    private static func decode<Result: Decodable>(_ value: JSONValue, as type: Result.Type, method: String) throws -> Result {
        do {
            return try value.decode(type)
        } catch {
            throw UbiqClientError(.invalidResponse, "the agent's answer to \(method) is not what this client expects: \(error)")
        }
    }

    /// Closes the connection; pending calls fail with `connectionClosed`.
    public func close() async {
        if closeReason == nil { closeReason = UbiqClientError(.connectionClosed, "the connection was closed by this client") }
        try? await channel.channel.close()
        await reader?.value
    }
}
