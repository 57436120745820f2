/// How the hosts of a `NamespaceLAN` are addressed. By default each host has only
/// 198.18.0.<i>/24 (RFC 2544's benchmarking range) and avahi speaks mDNS over IPv4. With
/// IPv6, each host also has fd00:0:0:2::<i>/64, a unique-local address (RFC 4193) that
/// exists only inside the LAN's namespaces, avahi speaks mDNS over IPv6 as well, and some
/// hosts may have no IPv4 address at all.
public struct LANAddressing: Sendable, Hashable {
    public let ipv6: Bool
    /// Hosts, counting from 1, without IPv4.
    public let ipv6Only: Set<Int>

    public static let ipv4 = LANAddressing(ipv6: false, ipv6Only: [])

    /// IPv4 and IPv6 on every host but those in `ipv6Only`, which have IPv6 alone.
    public static func dualStack(ipv6Only: Set<Int> = []) -> LANAddressing {
        LANAddressing(ipv6: true, ipv6Only: ipv6Only)
    }

    /// 198.18.0.<index>, or nil on an IPv6-only host.
    public func ipv4Address(_ index: Int) -> String? {
        ipv6Only.contains(index) ? nil : "198.18.0.\(index)"
    }

    /// fd00:0:0:2::<index> in hex, or nil without IPv6.
    public func ipv6Address(_ index: Int) -> String? {
        ipv6 ? "fd00:0:0:2::\(String(index, radix: 16))" : nil
    }
}
