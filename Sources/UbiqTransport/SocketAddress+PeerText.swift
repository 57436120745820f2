#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore

extension SocketAddress {
    /// `host:port` for logs and `agent.status`: IPv6 in brackets, and an IPv4 peer that
    /// reached a dual-stack listener, which the kernel reports as a v4-mapped IPv6 address
    /// (`::ffff:198.18.0.1`, RFC 4291 §2.5.5.2), as the plain IPv4 address it is.
    var peerText: String {
        guard let ip = ipAddress, let port else { return "\(self)" }
        guard case .v6(let v6) = self else { return "\(ip):\(port)" }
        if let v4 = Self.mappedIPv4(v6.address.sin6_addr) { return "\(v4):\(port)" }
        return "[\(ip)]:\(port)"
    }

    /// The dotted IPv4 form of `::ffff:a.b.c.d`; nil for any other IPv6 address.
    static func mappedIPv4(_ address: in6_addr) -> String? {
        withUnsafeBytes(of: address) { bytes in
            guard bytes.count == 16, bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else {
                return nil
            }
            return bytes.suffix(4).map(String.init).joined(separator: ".")
        }
    }
}
