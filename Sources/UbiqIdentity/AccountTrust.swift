import Foundation
import UbiqModel
import X509

/// Which certificates of the account's peers this device accepts, and how each stands to
/// this device's own generation of the account CA (DESIGN.md §1, rotation).
///
/// A peer of the same generation presents a certificate of the current CA. After a rotation
/// a device also accepts, for the hand-over alone, certificates of the CAs before it (a
/// member that missed the rotation, `behind`), and certificates of a newer CA that reach the
/// current one through the rotation's cross-certificates (`ahead`: this device missed one).
/// TLS cannot express this with trust roots alone (the first CA limits paths to length 0),
/// so the transport asks this check instead: each signature, each validity window, and
/// nothing but these three shapes.
public struct AccountTrust: Sendable {
    /// How a peer's certificate stands to this device's generation of the account CA.
    public enum Standing: String, Sendable {
        /// Issued by the current CA.
        case member
        /// Issued by a CA a rotation replaced: the peer missed the rotation.
        case behind
        /// Issued by a newer CA, cross-signed back to the current one: this device missed it.
        case ahead
    }

    let current: Certificate
    let previous: [Certificate]
    /// The longest chain of cross-certificates followed for an `ahead` peer.
    static let maximumCrossings = 16

    public init(identity: DeviceIdentity) throws {
        current = try Certificate(pemEncoded: identity.caCertificatePEM)
        previous = try identity.previousAuthoritiesDER.map { try KeyDigests.parseCertificate(der: $0) }
    }

    /// The peer's device ID and standing, from the chain it presented (leaf first); throws
    /// `invalidCertificate` saying why the chain is not the account's.
    public func check(chain: [[UInt8]], now: Date = Date()) throws -> (device: DeviceID, standing: Standing) {
        guard let leafDER = chain.first else { throw refused("the peer presented no certificate") }
        let leaf = try KeyDigests.parseCertificate(der: leafDER)
        try requireValid(leaf, now: now, what: "the peer's certificate")
        if case .isCertificateAuthority = try leaf.extensions.basicConstraints {
            throw refused("the peer's certificate is a CA certificate")
        }
        let device = try KeyDigests.deviceID(publicKey: leaf.publicKey)
        if Self.issued(leaf, by: current) { return (device, .member) }
        if previous.contains(where: { Self.issued(leaf, by: $0) }) { return (device, .behind) }
        // A newer CA: follow the cross-certificates the peer sent until one is the current CA's.
        let crossings = try chain.dropFirst().prefix(Self.maximumCrossings).map { try KeyDigests.parseCertificate(der: $0) }
        var child = leaf
        for _ in 0..<crossings.count {
            guard let issuer = crossings.first(where: { Self.issued(child, by: $0) }) else { break }
            try requireValid(issuer, now: now, what: "a cross-certificate the peer presented")
            guard case .isCertificateAuthority = try issuer.extensions.basicConstraints else {
                throw refused("the peer's chain holds a certificate that is not a CA")
            }
            if Self.issued(issuer, by: current) { return (device, .ahead) }
            child = issuer
        }
        throw refused("the peer's certificate was not issued by this account")
    }

    static func issued(_ certificate: Certificate, by authority: Certificate) -> Bool {
        certificate.issuer == authority.subject && authority.publicKey.isValidSignature(certificate.signature, for: certificate)
    }

    private func requireValid(_ certificate: Certificate, now: Date, what: String) throws {
        guard certificate.notValidBefore <= now, now <= certificate.notValidAfter else {
            throw refused("\(what) is not valid now (valid \(certificate.notValidBefore) to \(certificate.notValidAfter))")
        }
    }

    private func refused(_ reason: String) -> IdentityError {
        IdentityError(.invalidCertificate, reason)
    }
}
