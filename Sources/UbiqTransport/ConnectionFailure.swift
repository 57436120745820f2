import NIOCore
import NIOPosix
import NIOSSL

/// Why a connection to or from another workstation failed, in words a person acts on rather
/// than NIO's or BoringSSL's (an OpenSSL error stack, a `NIOConnectionError` with its inner
/// errors), which callers keep out of messages and warnings.
public enum ConnectionFailure: Sendable, Equatable {
    case unknownHost(String)
    case nothingListens(String)
    case unreachable(String)
    case noAnswer(String)
    /// The other side speaks TLS and refused this workstation's certificate: a member's sync
    /// port to a joiner, or a device of another account.
    case certificateRefused(String)
    case foreignCertificate
    case notTLS(String)
    case handshakeFailed(String)

    /// The failure `error` is, seen dialing or accepting `address` (`host:port`), or nil when
    /// it is none of these (the caller says what it was doing).
    public init?(_ error: any Error, address: String) {
        if let connection = error as? NIOConnectionError {
            if connection.connectionErrors.isEmpty && (connection.dnsAError != nil || connection.dnsAAAAError != nil) {
                self = .unknownHost(address)
                return
            }
            if let first = connection.connectionErrors.first {
                self.init(first.error, address: address)
                return
            }
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: self = .nothingListens(address); return
            case EHOSTUNREACH, ENETUNREACH: self = .unreachable(address); return
            case ETIMEDOUT: self = .noAnswer(address); return
            default: break
            }
        }
        if case .connectTimeout? = error as? ChannelError { self = .noAnswer(address); return }
        if error is SocketAddressError { self = .unknownHost(address); return }
        let text = String(describing: error)
        func names(_ codes: String...) -> Bool { codes.contains { text.contains($0) } }
        if names("CERTIFICATE_UNKNOWN", "UNKNOWN_CA", "BAD_CERTIFICATE") {
            self = .certificateRefused(address)
        } else if names("CERTIFICATE_VERIFY_FAILED", "NO_CERTIFICATE", "PEER_DID_NOT_RETURN_A_CERTIFICATE") {
            self = .foreignCertificate
        } else if names("WRONG_VERSION_NUMBER", "HTTP_REQUEST", "PACKET_LENGTH_TOO_LONG") {
            self = .notTLS(address)
        } else if error is NIOSSLError || error is BoringSSLError {
            self = .handshakeFailed(address)
        } else {
            return nil
        }
    }

    /// The plain reason for `error`, or nil as for ``init(_:address:)``.
    public static func reason(_ error: any Error, address: String) -> String? {
        ConnectionFailure(error, address: address)?.description
    }
}

extension ConnectionFailure: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unknownHost(let address): "the host name in \(address) is not known here (check its spelling, or give an IP address)"
        case .nothingListens(let address): "nothing listens at \(address)"
        case .unreachable(let address): "\(address) cannot be reached from this network"
        case .noAnswer(let address): "\(address) did not answer"
        case .certificateRefused(let address): "\(address) speaks TLS but refused this workstation's certificate"
        case .foreignCertificate: "the other side's certificate is not of this account"
        case .notTLS(let address): "\(address) does not speak TLS: it is no ubiq agent"
        case .handshakeFailed(let address): "the TLS handshake with \(address) failed"
        }
    }
}
