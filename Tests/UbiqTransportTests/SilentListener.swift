#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An address that never answers, on loopback and without root: a listening socket with a
/// backlog of zero whose queue one connection fills, and that never accepts. The kernel then
/// drops every further SYN to it, as a black-holed VPN address would; a connect there hangs
/// until it times out.
final class SilentListener {
    let port: Int
    private let listening: Int32
    private let filler: Int32

    /// Listens on `[::1]:port` (0 picks one) and fills the queue.
    init(ipv6LoopbackPort port: Int = 0) throws {
        let listening = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        let filler = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        self.listening = listening
        self.filler = filler
        do {
            self.port = try Self.listenAndFill(listening, filler, port: port)
        } catch {
            close(filler)
            close(listening)
            throw error
        }
    }

    /// Returns the port bound.
    private static func listenAndFill(_ listening: Int32, _ filler: Int32, port: Int) throws -> Int {
        guard listening >= 0, filler >= 0 else { throw SocketFailed(step: "socket", code: errno) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        address.sin6_port = in_port_t(UInt16(port).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(listening, raw, length) == 0 else { throw SocketFailed(step: "bind", code: errno) }
                guard listen(listening, 0) == 0 else { throw SocketFailed(step: "listen", code: errno) }
                guard getsockname(listening, raw, &length) == 0 else { throw SocketFailed(step: "getsockname", code: errno) }
                guard connect(filler, raw, length) == 0 else { throw SocketFailed(step: "connect", code: errno) }
            }
        }
        return Int(UInt16(bigEndian: address.sin6_port))
    }

    deinit {
        close(filler)
        close(listening)
    }

    struct SocketFailed: Error {
        let step: String
        let code: Int32
    }
}
