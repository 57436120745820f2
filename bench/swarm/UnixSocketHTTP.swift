import Foundation

/// One HTTP/1.0 request over a Unix socket, blocking until the server closes the connection:
/// enough for Syncthing's REST API, which the benchmark has it serve on a socket in the
/// instance's folder, reachable from the machine's own namespace while Syncthing runs in a
/// host's.
enum UnixSocketHTTP {
    struct Response {
        var status: Int
        var body: Data
    }

    static func request(socket path: String, method: String, target: String, headers: [String: String] = [:],
                        timeout: Duration = .seconds(10)) throws -> Response {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { throw BenchmarkError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw BenchmarkError("connect to \(path): \(String(cString: strerror(errno)))") }
        let head = (["\(method) \(target) HTTP/1.0", "Host: localhost", "Content-Length: 0"]
            + headers.map { "\($0.key): \($0.value)" }).joined(separator: "\r\n") + "\r\n\r\n"
        let bytes = Array(head.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw BenchmarkError("write to \(path): \(String(cString: strerror(errno)))") }
            written += n
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n == 0 { break }
            guard n > 0 else { throw BenchmarkError("read from \(path): \(String(cString: strerror(errno)))") }
            answer.append(contentsOf: buffer[..<n])
        }
        guard let split = answer.range(of: Data("\r\n\r\n".utf8)),
              let statusLine = String(decoding: answer[..<split.lowerBound], as: UTF8.self).split(separator: "\r\n").first,
              let status = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw BenchmarkError("no HTTP answer from \(path) to \(method) \(target)")
        }
        return Response(status: status, body: Data(answer[split.upperBound...]))
    }
}
