import Crypto
import UbiqModel
import X509

extension Account {
    /// Removes `device` from the account: a revocation signed with the account key.
    public func revoke(_ device: DeviceID, by remover: DeviceID, at milliseconds: Int64) throws -> Revocation {
        var revocation = Revocation(device: device, revokedAt: milliseconds, by: remover, signature: [])
        let key = try P256.Signing.PrivateKey(rawRepresentation: keyBytes)
        revocation.signature = Array(try key.signature(for: revocation.signedMessage(account: identityToken)).derRepresentation)
        return revocation
    }
}

/// Checks that what a peer passes on was signed by the account: the public key of the
/// account's CA certificate, which every device holds.
public struct AccountSignatures: Sendable {
    /// The account key's public point (X9.63), kept as bytes: P256 keys are not `Sendable`.
    private let publicKey: [UInt8]
    public let identityToken: String

    public init(caCertificatePEM: String) throws {
        let certificate: Certificate
        do { certificate = try Certificate(pemEncoded: caCertificatePEM) } catch {
            throw IdentityError(.invalidCertificate, "The account certificate could not be parsed: \(error).")
        }
        try self.init(certificate: certificate)
    }

    /// Checks signatures of a CA a rotation replaced (DER), for carrying its revocations over.
    public init(caCertificateDER: [UInt8]) throws {
        try self.init(certificate: try KeyDigests.parseCertificate(der: caCertificateDER))
    }

    private init(certificate: Certificate) throws {
        guard let key = P256.Signing.PublicKey(certificate.publicKey) else {
            throw IdentityError(.invalidCertificate, "The account certificate's key is not a P-256 key.")
        }
        publicKey = Array(key.x963Representation)
        identityToken = try KeyDigests.identityToken(caCertificate: certificate)
    }

    /// Whether the account signed `revocation`.
    public func isValid(_ revocation: Revocation) -> Bool {
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: revocation.signature),
              let key = try? P256.Signing.PublicKey(x963Representation: publicKey) else { return false }
        return key.isValidSignature(signature, for: revocation.signedMessage(account: identityToken))
    }
}
