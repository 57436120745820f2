import CDNSSD
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Process-wide preparation of the dns_sd library and the mapping of its error codes.
enum DNSSD {
    /// Runs once, before the first dns_sd call: silences avahi's "uses the Apple Bonjour
    /// compatibility layer" warning on stderr, and makes avahi zero what it allocates (see
    /// `cdnssd_zero_avahi_allocations` in the shim: without it, a resolve open when
    /// avahi-daemon stops crashes the process).
    private static let environmentPrepared: Bool = {
        setenv("AVAHI_COMPAT_NOWARN", "1", 1)
        return cdnssd_zero_avahi_allocations() != 0
    }()

    static func prepare() { _ = environmentPrepared }

    static let noError = cdnssd_err_no_error()
    /// mDNSResponder's "daemon not running"; avahi's library reports `kDNSServiceErr_Unknown`
    /// instead, but accept both.
    static let serviceNotRunning: DNSServiceErrorType = -65563

    /// The error for a request dns_sd refused: `unavailable` when avahi cannot be reached,
    /// `serviceFailed` otherwise.
    static func failure(_ code: DNSServiceErrorType, doing what: String) -> DiscoveryError {
        switch Int(code) {
        case Int(serviceNotRunning), kDNSServiceErr_Unknown:
            return DiscoveryError(.unavailable, "avahi-daemon is not running (\(systemBusDiagnosis(code))); discovery is off, static peers still work")
        case kDNSServiceErr_Refused:
            return DiscoveryError(.unavailable, "avahi-daemon refused the connection (D-Bus policy or too many clients, \(name(code))); discovery is off, static peers still work")
        default:
            return DiscoveryError(.serviceFailed, "avahi could not \(what): \(name(code)) (\(code))")
        }
    }

    /// Tells "no system bus" from "bus up, avahi-daemon absent", the two usual causes.
    static func systemBusDiagnosis(_ code: DNSServiceErrorType) -> String {
        guard let path = systemBusSocketPath() else {
            return "no answer on the D-Bus system bus, dns_sd error \(code)"
        }
        if access(path, F_OK) != 0 {
            return "no D-Bus system bus at \(path)"
        }
        return "a D-Bus system bus socket exists at \(path) but avahi-daemon did not answer on it, dns_sd error \(code)"
    }

    /// Where libdbus looks for the system bus: `DBUS_SYSTEM_BUS_ADDRESS` when it names a
    /// `unix:path=`, else the default socket; nil for other transports.
    static func systemBusSocketPath() -> String? {
        guard let raw = getenv("DBUS_SYSTEM_BUS_ADDRESS") else { return "/run/dbus/system_bus_socket" }
        let address = String(cString: raw)
        let first = address.split(separator: ";").first ?? ""
        guard first.hasPrefix("unix:") else { return nil }
        for part in first.dropFirst(5).split(separator: ",") where part.hasPrefix("path=") {
            return String(part.dropFirst(5))
        }
        return nil
    }

    static func name(_ code: DNSServiceErrorType) -> String {
        switch Int(code) {
        case kDNSServiceErr_NoError: "no error"
        case kDNSServiceErr_Unknown: "unknown error"
        case kDNSServiceErr_NoSuchName: "no such name"
        case kDNSServiceErr_NoMemory: "out of memory"
        case kDNSServiceErr_BadParam: "bad parameter"
        case kDNSServiceErr_BadReference: "bad reference"
        case kDNSServiceErr_BadState: "bad state"
        case kDNSServiceErr_BadFlags: "bad flags"
        case kDNSServiceErr_Unsupported: "unsupported"
        case kDNSServiceErr_NameConflict: "name conflict"
        case kDNSServiceErr_Invalid: "invalid"
        case kDNSServiceErr_Incompatible: "library incompatible with the daemon"
        case kDNSServiceErr_BadInterfaceIndex: "bad interface index"
        case kDNSServiceErr_Refused: "refused"
        default: "error"
        }
    }
}
