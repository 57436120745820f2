import Foundation
import Logging
import Synchronization
import Testing
@testable import UbiqWeb

/// The page's server over real HTTP on loopback: what `WebAccess` refuses never reaches a
/// route, the token in the address becomes a cookie, and oversized bodies are refused.
@Suite(.timeLimit(.minutes(1))) struct WebServerTests {
    let token = WebToken.make()
    let csrf = WebToken.make()

    /// Runs a server whose one route answers 200 with the method and path, for `body`.
    func withServer(_ body: (WebServer) async throws -> Void) async throws {
        let server = try await WebServer(host: "127.0.0.1", port: 0, token: token, csrfToken: csrf,
                                         logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }) { request in
            .text(200, "\(request.method) \(request.path)")
        }
        let running = Task { try await server.run() }
        defer { running.cancel() }
        try await body(server)
    }

    @Test func refusedRequestsNeverReachARoute() async throws {
        try await withServer { server in
            let host = "127.0.0.1:\(server.port)"
            let cookie = "Cookie: ubiq_ui=\(token)"
            #expect(try await rawHTTP(port: server.port, "GET / HTTP/1.1\r\nHost: \(host)").status == 401)
            #expect(try await rawHTTP(port: server.port, "GET / HTTP/1.1\r\nHost: \(host)\r\nCookie: ubiq_ui=\(csrf)").status == 401)
            #expect(try await rawHTTP(port: server.port, "GET / HTTP/1.1\r\nHost: rebound.example:\(server.port)\r\n\(cookie)").status == 403)
            let allowed = try await rawHTTP(port: server.port, "GET /x HTTP/1.1\r\nHost: \(host)\r\n\(cookie)")
            #expect(allowed.status == 200)
            #expect(allowed.body == "GET /x\n")
            let post = "POST /api/rpc HTTP/1.1\r\nHost: \(host)\r\n\(cookie)\r\nContent-Length: 2"
            #expect(try await rawHTTP(port: server.port, post, body: "{}").status == 403)
            #expect(try await rawHTTP(port: server.port, post + "\r\nX-Ubiq-CSRF: \(csrf)", body: "{}").status == 403)
            #expect(try await rawHTTP(port: server.port, post + "\r\nOrigin: http://evil.example\r\nX-Ubiq-CSRF: \(csrf)", body: "{}").status == 403)
            #expect(try await rawHTTP(port: server.port, post + "\r\nOrigin: http://\(host)\r\nX-Ubiq-CSRF: \(csrf)", body: "{}").status == 200)
        }
    }

    @Test func theTokenInTheAddressBecomesACookie() async throws {
        try await withServer { server in
            let answer = try await rawHTTP(port: server.port, "GET /?token=\(token) HTTP/1.1\r\nHost: localhost:\(server.port)")
            #expect(answer.status == 303)
            #expect(answer.head.contains("Location: /\r\n"))
            #expect(answer.head.contains("Set-Cookie: ubiq_ui=\(token); Path=/; HttpOnly; SameSite=Strict"))
            #expect(try await rawHTTP(port: server.port, "GET /?token=\(csrf) HTTP/1.1\r\nHost: localhost:\(server.port)").status == 401)
        }
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        try await withServer { server in
            let size = WebServer.maximumBody + 1
            let answer = try await rawHTTP(port: server.port, """
                POST /api/rpc HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nCookie: ubiq_ui=\(token)\r\n\
                Origin: http://127.0.0.1:\(server.port)\r\nX-Ubiq-CSRF: \(csrf)\r\nContent-Length: \(size)
                """, body: String(repeating: "x", count: size))
            #expect(answer.status == 413)
        }
    }
}

/// A connection that sends one request and collects what comes back as it comes, on a
/// thread of its own, for answers that stream (server-sent events).
final class StreamingHTTP: Sendable {
    private let received = Mutex<(bytes: [UInt8], ended: Bool)>(([], false))

    init(port: Int, _ head: String) throws {
        let fd = try connectedSocket(port: port)
        let request = Array((head + "\r\nConnection: close\r\n\r\n").utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                self.received.withLock { $0.bytes += buffer[0..<count] }
            }
            close(fd)
            self.received.withLock { $0.ended = true }
        }.start()
    }

    var text: String { String(decoding: received.withLock { $0.bytes }, as: UTF8.self) }
    var ended: Bool { received.withLock { $0.ended } }
}

func connectedSocket(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        throw POSIXError(.ECONNREFUSED)
    }
    return fd
}

/// Sends `head` (without its final blank line) and `body` over a new TCP connection with
/// `Connection: close`, and reads the whole answer. The socket is used from a thread of its
/// own: blocked in `recv` on the tasks' threads, it would starve the server it waits for.
func rawHTTP(port: Int, _ head: String, body: String = "") async throws -> (status: Int, head: String, body: String) {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try blockingHTTP(port: port, head, body: body) }) }.start()
    }
}

private func blockingHTTP(port: Int, _ head: String, body: String) throws -> (status: Int, head: String, body: String) {
    let fd = try connectedSocket(port: port)
    defer { close(fd) }
    let request = Array((head + "\r\nConnection: close\r\n\r\n" + body).utf8)
    var sent = 0
    while sent < request.count {
        let count = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if count <= 0 { break }  // the server may answer and close before reading it all (413)
        sent += count
    }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        answer += buffer[0..<count]
    }
    let text = String(decoding: answer, as: UTF8.self)
    let parts = text.components(separatedBy: "\r\n\r\n")
    let status = parts.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return (status, (parts.first ?? "") + "\r\n", parts.dropFirst().joined(separator: "\r\n\r\n"))
}
