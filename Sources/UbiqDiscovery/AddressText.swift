#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Turns A and AAAA record data into the text form a connect call takes.
enum AddressText {
    /// `198.18.0.1`, `2001:db8::1`, or `fe80::1%eth0` for a link-local IPv6 address (the
    /// interface it was seen on is needed to reach it). Nil for data of the wrong size.
    static func format(rrtype: UInt16, rdata: [UInt8], interfaceIndex: UInt32) -> String? {
        switch (rrtype, rdata.count) {
        case (1, 4):
            return rdata.map(String.init).joined(separator: ".")
        case (28, 16):
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, rdata, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let linkLocal = rdata[0] == 0xFE && rdata[1] & 0xC0 == 0x80
            if linkLocal, interfaceIndex > 0 {
                var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
                if if_indextoname(interfaceIndex, &name) != nil {
                    text += "%" + String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
            return text
        default:
            return nil
        }
    }
}
