import Crypto
import UbiqModel
import X509

/// Who this workstation is on the peer network: its device key and certificate, and the
/// account CA certificate that is the only trust root for its peers. Carries everything the
/// transport hands to TLS, in PEM, which NIOSSL reads directly.
public struct DeviceIdentity: Sendable {
    public let deviceID: DeviceID
    public let deviceName: String
    /// The account's identity token (`ubiquityIdentityToken`).
    public let identityToken: String
    /// A short hash of the identity token, for mDNS TXT records.
    public var accountTag: String { KeyDigests.accountTag(identityToken: identityToken) }

    /// The device certificate, PEM.
    public let certificatePEM: String
    /// The device certificate, DER.
    public let certificateDER: [UInt8]
    /// The device's private key, PKCS #8 PEM.
    public let privateKeyPEM: String
    /// The account CA certificate, PEM: the only certificate peers are verified against.
    public let caCertificatePEM: String
    /// The CAs that rotations replaced (DER, oldest first): accepted only to hand a rotation
    /// over to a member that missed it (``AccountTrust``).
    public internal(set) var previousAuthoritiesDER: [[UInt8]] = []
    /// The rotations' cross-certificates (DER, newest first), sent after the device
    /// certificate so that a member that missed a rotation can follow it to the CA it knows.
    public internal(set) var crossCertificatesDER: [[UInt8]] = []

    /// An identity from its parts. Checks that the key belongs to the certificate; it does
    /// not check that the certificate chains to the CA (`IdentityStore` does when it loads), so
    /// tests can build identities that peers must refuse.
    public init(deviceName: String, certificatePEM: String, privateKeyPEM: String, caCertificatePEM: String) throws {
        let certificate: Certificate
        let caCertificate: Certificate
        let key: P256.Signing.PrivateKey
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
            caCertificate = try Certificate(pemEncoded: caCertificatePEM)
        } catch {
            throw IdentityError(.invalidCertificate, "A certificate could not be parsed: \(error).")
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw IdentityError(.invalidCertificate, "The device key is not a P-256 private key: \(error).")
        }
        guard Certificate.PublicKey(key.publicKey) == certificate.publicKey else {
            throw IdentityError(.invalidCertificate, "The device key does not belong to the device certificate.")
        }
        self.deviceID = try KeyDigests.deviceID(publicKey: certificate.publicKey)
        self.deviceName = deviceName
        self.identityToken = try KeyDigests.identityToken(caCertificate: caCertificate)
        self.certificatePEM = certificatePEM
        self.certificateDER = try certificate.serializeAsPEM().derBytes
        self.privateKeyPEM = privateKeyPEM
        self.caCertificatePEM = caCertificatePEM
    }
}

/// Printing an identity never shows its private key.
extension DeviceIdentity: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "DeviceIdentity(\(deviceID), \(deviceName))" }
    public var debugDescription: String { description }
}
