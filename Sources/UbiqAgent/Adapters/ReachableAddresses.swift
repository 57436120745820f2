#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import UbiqConfig
import UbiqModel

/// Where this device tells the account's other devices it listens (`ubiq devices` shows
/// them): each listen address as it is, and a wildcard one (`0.0.0.0`, `::`) as the host's
/// own addresses with its port, loopback and link-local ones left out.
enum ReachableAddresses {
    static func of(listening: [String]) -> [String] {
        var result: [String] = []
        for address in listening {
            guard let parsed = try? HostPort(address) else { continue }
            if parsed.host == "0.0.0.0" || parsed.host == "::" {
                for local in interfaceAddresses(includingIPv6: parsed.host == "::") {
                    result.append(local.contains(":") ? "[\(local)]:\(parsed.port)" : "\(local):\(parsed.port)")
                }
            } else {
                result.append(address)
            }
        }
        var seen = Set<String>()
        return Array(result.filter { seen.insert($0).inserted }.prefix(DeviceRecord.maximumAddresses))
    }

    /// The host's interface addresses, numeric; no loopback, no IPv6 link-local.
    private static func interfaceAddresses(includingIPv6: Bool) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || (includingIPv6 && family == AF_INET6) else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if numeric.hasPrefix("127.") || numeric == "::1" || numeric.lowercased().hasPrefix("fe80") { continue }
            addresses.append(numeric)
        }
        return addresses
    }
}
