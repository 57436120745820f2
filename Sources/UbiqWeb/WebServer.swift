import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// The agent's web page over HTTP/1.1: every request is checked by ``WebAccess`` before a
/// route sees it, and answered by `respond`. Bodies over 1 MiB are refused (413).
public final class WebServer: Sendable {
    public typealias Respond = @Sendable (WebRequest) async -> WebResponse

    /// The largest request body read.
    public static let maximumBody = 1 << 20
    static let tokenCookie = "ubiq_ui"

    private let access: WebAccess
    private let respond: Respond
    private let logger: Logger
    private let listener: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
    /// The port listened on (the one asked for, or the kernel's pick for 0).
    public let port: Int

    /// Listens on `host`:`port` (0: any free port). The token and CSRF token are those of
    /// `access`, whose port is taken from the listener.
    public init(host: String, port: Int, token: String, csrfToken: String, logger: Logger, respond: @escaping Respond) async throws(WebError) {
        do {
            listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw WebError(.listen, "the web page cannot listen on \(WebAccess.hostForm(host)):\(port): \(error); set ui.listen to a free address, or ui = false")
        }
        self.port = listener.channel.localAddress?.port ?? port
        self.access = WebAccess(token: token, csrfToken: csrfToken, listenHost: host, port: self.port)
        self.respond = respond
        self.logger = logger
    }

    /// Serves connections until cancelled, then returns: a stop is no failure. As the control
    /// server does (apple/swift-nio#2813), cancellation closes the listener rather than
    /// reaching the accept loop, which then ends its connections.
    public func run() async throws {
        let listener = listener
        let acceptLoop = Task {
            try await withThrowingDiscardingTaskGroup { group in
                defer { group.cancelAll() }
                try await listener.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        }
        try await withTaskCancellationHandler {
            try await acceptLoop.value
        } onCancel: {
            listener.channel.close(promise: nil)
        }
    }

    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body: [UInt8] = []
            var tooLarge = false
            for try await part in inbound {
                switch part {
                case .head(let received):
                    (head, body, tooLarge) = (received, [], false)
                case .body(var buffer):
                    if body.count + buffer.readableBytes > Self.maximumBody {
                        tooLarge = true
                    } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
                        body += bytes
                    }
                case .end:
                    guard let request = head else { continue }
                    let response = tooLarge ? .text(413, "the request is larger than 1 MiB") : await answer(request, body: body)
                    try await write(response, to: outbound, keepAlive: request.isKeepAlive && !tooLarge)
                    if tooLarge || !request.isKeepAlive { return }
                    head = nil
                }
            }
        }
    }

    /// Checks the request, then hands it to the routes; a token in the query of the page's
    /// address becomes a cookie, and the address loses it.
    func answer(_ head: HTTPRequestHead, body: [UInt8]) async -> WebResponse {
        let (path, query) = WebRequest.split(target: head.uri)
        let request = WebRequest(method: head.method.rawValue, path: path, query: query,
                                 headers: head.headers.map { ($0.name, $0.value) }, body: body)
        let bearer = request.header("Authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let fromQuery = request.method == "GET" && path == "/" ? query["token"] : nil
        let decision = access.check(WebAccess.Request(
            method: request.method, host: request.header("Host"), origin: request.header("Origin"),
            token: fromQuery ?? bearer ?? request.cookie(Self.tokenCookie), csrf: request.header("X-Ubiq-CSRF")))
        switch decision {
        case .allowed:
            if let fromQuery {
                return WebResponse(status: 303, headers: [
                    ("Location", "/"),
                    ("Set-Cookie", "\(Self.tokenCookie)=\(fromQuery); Path=/; HttpOnly; SameSite=Strict"),
                ])
            }
            return await respond(request)
        case .unauthorized(let reason):
            logger.info("web page request refused", metadata: ["status": "401", "path": "\(path)", "reason": "\(reason)"])
            return .text(401, reason)
        case .forbidden(let reason):
            logger.warning("web page request refused", metadata: ["status": "403", "path": "\(path)", "reason": "\(reason)"])
            return .text(403, reason)
        }
    }

    private func write(_ response: WebResponse, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, keepAlive: Bool) async throws {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        if response.stream == nil { headers.replaceOrAdd(name: "Content-Length", value: "\(response.body.count)") }
        headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)))
        if let stream = response.stream {
            try await stream { piece in try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: piece)))) }
        } else {
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
        }
        try await outbound.write(.end(nil))
    }
}
