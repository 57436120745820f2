import NIOCore
import NIOPosix
import NIOSSL

/// Why a connection to or from another workstation failed, in words a person acts on rather
/// than NIO's or BoringSSL's: the library's text (an OpenSSL error stack, a `NIOConnectionError`
/// with its inner errors) is kept only as the log's `detail`.
public enum ConnectionFailure {
    /// The plain reason for `error`, seen dialing `address` (`host:port`), or nil when it is
    /// none of the failures below (the caller says what it was doing).
    public static func reason(_ error: any Error, address: String) -> String? {
        let text = String(describing: error)
        if let connection = error as? NIOConnectionError {
            if connection.connectionErrors.isEmpty && (connection.dnsAError != nil || connection.dnsAAAAError != nil) {
                return "the host name in \(address) is not known here (check its spelling, or give an IP address)"
            }
            if let first = connection.connectionErrors.first { return reason(first.error, address: address) }
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: return "nothing listens at \(address)"
            case EHOSTUNREACH, ENETUNREACH: return "\(address) cannot be reached from this network"
            case ETIMEDOUT: return "\(address) did not answer"
            default: break
            }
        }
        if case .connectTimeout? = error as? ChannelError {
            return "\(address) did not answer within the connect timeout"
        }
        if error is SocketAddressError {
            return "the host name in \(address) is not known here (check its spelling, or give an IP address)"
        }
        if text.contains("CERTIFICATE_UNKNOWN") || text.contains("UNKNOWN_CA") || text.contains("BAD_CERTIFICATE") {
            return "\(address) speaks TLS but refused this workstation's certificate"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("NO_CERTIFICATE") || text.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") {
            return "the other side's certificate is not of this account"
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("HTTP_REQUEST") || text.contains("PACKET_LENGTH_TOO_LONG") {
            return "\(address) does not speak TLS: it is no ubiq agent"
        }
        if error is NIOSSLError || error is BoringSSLError { return "the TLS handshake with \(address) failed" }
        return nil
    }
}
