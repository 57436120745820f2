/// A network endpoint written `host:port` or `[v6-address]:port`, as used by `listen` and
/// `peers`; parsing is strict so that a typo fails at start-up instead of at connect time.
public struct HostPort: Hashable, Sendable, CustomStringConvertible {
    /// A host name, an IPv4 address, or an IPv6 address without brackets.
    public let host: String
    /// 0 only for listening addresses, where it asks the system for a free port.
    public let port: Int

    /// Parses `text`; `allowPortZero` is for listening addresses only.
    public init(_ text: String, allowPortZero: Bool = false) throws(ConfigError) {
        let hint = "use host:port or [v6-address]:port, e.g. 192.168.1.20:22100 or [fe80::1%eth0]:22100"
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"),
                  text[text.index(after: close)...].hasPrefix(":")
            else {
                throw ConfigError(.invalidHostPort, "'\(text)' is missing ']:port'; \(hint)")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
            guard hostPart.contains(":"), hostPart.allSatisfy(Self.isIPv6Character) else {
                throw ConfigError(.invalidHostPort, "'\(hostPart)' in '\(text)' is not an IPv6 address; \(hint)")
            }
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw ConfigError(.invalidHostPort, "'\(text)' has no port; \(hint)")
            }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") {
                throw ConfigError(.invalidHostPort, "'\(text)' looks like an IPv6 address without brackets; write [\(hostPart)]:\(portPart)")
            }
            guard !hostPart.isEmpty, hostPart.utf8.count <= 253, hostPart.allSatisfy(Self.isHostNameCharacter) else {
                throw ConfigError(.invalidHostPort, "'\(hostPart)' in '\(text)' is not a host name or IPv4 address; \(hint)")
            }
        }
        let lowest = allowPortZero ? 0 : 1
        guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(portPart), (lowest...65535).contains(port)
        else {
            throw ConfigError(.invalidHostPort, "port '\(portPart)' in '\(text)' must be a number from \(lowest) to 65535")
        }
        self.host = String(hostPart)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private static func isHostNameCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "." || c == "_")
    }

    private static func isIPv6Character(_ c: Character) -> Bool {
        // Hex digits, ':' and '.' (embedded IPv4), then '%' and a zone such as eth0.
        c.isASCII && (c.isLetter || c.isNumber || c == ":" || c == "." || c == "%" || c == "-" || c == "_")
    }
}

extension HostPort {
    /// For constants known to be valid.
    init(unchecked host: String, port: Int) {
        self.host = host
        self.port = port
    }
}
