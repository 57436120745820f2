/// Why a peer connection could not be made or used; `code` is stable for callers and tests,
/// `message` names the peer and what to check next.
public struct PeerTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No TCP connection could be made (nothing listening, no route, timed out).
        case unreachable
        /// TCP connected but the peer was not accepted, or did not accept us: another
        /// account, a certificate not signed by the account CA, no `ubiq/1` protocol.
        case handshakeRefused
        /// The listening address could not be bound.
        case bindFailed
        /// The listening address is not one this host has, or its family (IPv6) is missing.
        case addressUnavailable
        /// Every address answered as some other device of the account than the one expected
        /// (an address now used by another workstation).
        case unexpectedDevice
        /// The device identity could not be turned into a TLS configuration.
        case invalidIdentity
        /// The connection is closed; nothing more can be sent.
        case connectionClosed
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
