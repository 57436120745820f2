#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore
import NIOPosix

/// Turns a peer's host, as configured or discovered, into every socket address it stands
/// for: a host name may have several, and an IPv6 address may carry a zone
/// (`fe80::1%eth0`), which only getaddrinfo reads. getaddrinfo blocks, so it runs on NIO's
/// thread pool, never on Swift's cooperative pool.
enum PeerAddressResolver {
    /// The addresses in getaddrinfo's order (RFC 6724 destination selection). A plain
    /// numeric address, the usual case, is read at once without a trip to the thread pool.
    static func resolve(_ host: String, port: Int) async throws -> [SocketAddress] {
        if let address = try? SocketAddress(ipAddress: host, port: port) { return [address] }
        return try await NIOThreadPool.singleton.runIfActive { try resolveNow(host, port: port) }
    }

    private static func resolveNow(_ host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw PeerTransportError(.unreachable, "Could not resolve \(host): \(String(cString: gai_strerror(status))); check the name or write an address.")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let raw = info.ai_addr else { continue }
            switch info.ai_family {
            case AF_INET:
                addresses.append(raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
            case AF_INET6:
                addresses.append(raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
            default:
                continue
            }
        }
        return addresses
    }
}
