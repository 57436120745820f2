import Crypto
import Foundation
import SwiftASN1
import X509

/// The certificate a joining workstation shows while it joins with a code: a fresh P-256
/// key, self-signed, valid for a day, for that one connection. It has no account yet; the
/// code's proofs bind this certificate to the join. The key is the one the workstation's
/// device certificate is then issued for (``IdentityStore/join(bundleText:deviceName:deviceKeyPEM:)``),
/// so the inviting device knows the new device's ID at once and lists it.
public struct JoinCredentials: Sendable {
    public let certificatePEM: String
    public let privateKeyPEM: String
    public let certificateDER: [UInt8]

    public static func generate(now: Date = Date()) throws -> JoinCredentials {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            OrganizationName("ubiq")
            CommonName("ubiq joining device")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now - 300, notValidAfter: now + 24 * 3600, issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        return JoinCredentials(certificatePEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation,
                               certificateDER: try certificate.serializeAsPEM().derBytes)
    }
}
