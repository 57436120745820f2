import Crypto
import Foundation
import SwiftASN1
import X509

/// An account (DESIGN.md §1): the CA key pair that every device of one user shares. Holding
/// it is what lets a workstation sign its own device certificate when it joins.
public struct Account: Sendable {
    let certificate: Certificate
    let signingKey: Certificate.PrivateKey
    /// The CA key's raw scalar, for signing other things than certificates (P256 keys are not
    /// `Sendable` values).
    let keyBytes: [UInt8]

    /// Lowercase hex SHA-256 of the CA's SubjectPublicKeyInfo; the `ubiquityIdentityToken`.
    public let identityToken: String

    /// A short hash of the identity token, for mDNS TXT records.
    public var accountTag: String { KeyDigests.accountTag(identityToken: identityToken) }

    public var certificatePEM: String { (try? certificate.serializeAsPEM().pemString) ?? "" }
    public let privateKeyPEM: String

    static let validity: TimeInterval = 20 * 365.25 * 24 * 3600
    /// Certificates start a day early so workstations with skewed clocks still accept them.
    static let backdating: TimeInterval = 24 * 3600

    /// A new account with a fresh P-256 CA key and a self-signed CA certificate valid ~20 years.
    public static func create(now: Date = Date()) throws -> Account {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let token = String(try KeyDigests.hex(SHA256.hash(data: KeyDigests.subjectPublicKeyInfo(publicKey))).prefix(16))
        let name = try DistinguishedName {
            OrganizationName("ubiq")
            CommonName("ubiq account \(token)")
        }
        let certificate = try makeAuthority(subject: name, publicKey: publicKey, issuer: name, issuerKey: Certificate.PrivateKey(key),
                                            issuerKeyIdentifier: nil, now: now)
        return try Account(certificate: certificate, privateKey: key)
    }

    /// A CA certificate valid ~20 years for `publicKey`, signed by `issuerKey` (the key itself
    /// for a self-signed one; the previous CA's for a rotation's cross-certificate).
    static func makeAuthority(subject: DistinguishedName, publicKey: Certificate.PublicKey, issuer: DistinguishedName,
                              issuerKey: Certificate.PrivateKey, issuerKeyIdentifier: ArraySlice<UInt8>?, now: Date) throws -> Certificate {
        try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now - backdating,
            notValidAfter: now + validity,
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
                if let issuerKeyIdentifier {
                    AuthorityKeyIdentifier(keyIdentifier: issuerKeyIdentifier)
                }
            },
            issuerPrivateKey: issuerKey
        )
    }

    /// An account from its CA certificate and key; checks that they belong together and
    /// that the certificate is a usable CA.
    public init(certificatePEM: String, privateKeyPEM: String) throws {
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
        } catch {
            throw IdentityError(.invalidCertificate, "The account certificate could not be parsed: \(error).")
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw IdentityError(.invalidCertificate, "The account key is not a P-256 private key: \(error).")
        }
        try self.init(certificate: certificate, privateKey: key)
    }

    init(certificate: Certificate, privateKey: P256.Signing.PrivateKey) throws {
        guard case .isCertificateAuthority = try certificate.extensions.basicConstraints else {
            throw IdentityError(.invalidCertificate, "The account certificate is not a CA certificate.")
        }
        guard try certificate.extensions.keyUsage?.keyCertSign ?? true else {
            throw IdentityError(.invalidCertificate, "The account certificate may not sign certificates.")
        }
        guard certificate.issuer == certificate.subject,
              certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
        else {
            throw IdentityError(.invalidCertificate, "The account certificate is not self-signed.")
        }
        guard Certificate.PublicKey(privateKey.publicKey) == certificate.publicKey else {
            throw IdentityError(.invalidCertificate, "The account key does not belong to the account certificate.")
        }
        self.certificate = certificate
        self.keyBytes = Array(privateKey.rawRepresentation)
        self.signingKey = Certificate.PrivateKey(privateKey)
        self.privateKeyPEM = privateKey.pemRepresentation
        self.identityToken = try KeyDigests.identityToken(caCertificate: certificate)
    }

    /// Whether `certificate` was issued by this account's CA.
    func issued(_ certificate: Certificate) -> Bool {
        AccountTrust.issued(certificate, by: self.certificate)
    }

    /// Makes a new device of this account: a P-256 key (`key`, or a fresh one) and a
    /// certificate for TLS client and server use, signed by the account CA.
    public func issueDevice(name: String, key: P256.Signing.PrivateKey = P256.Signing.PrivateKey(), now: Date = Date()) throws -> DeviceIdentity {
        try Self.makeDevice(name: name, key: key, signer: signer, caCertificatePEM: certificatePEM, now: now)
    }

    /// A device whose certificate looks like a device certificate but is signed by its own
    /// key, not by `account`, while it trusts `account`'s CA: what an impostor would present.
    @_spi(Testing)
    public static func selfSignedDevice(name: String, trusting account: Account, now: Date = Date()) throws -> DeviceIdentity {
        try makeDevice(name: name, key: P256.Signing.PrivateKey(), signer: nil, caCertificatePEM: account.certificatePEM, now: now)
    }

    private struct Signer {
        let name: DistinguishedName
        let key: Certificate.PrivateKey
        let keyIdentifier: ArraySlice<UInt8>?
        let notValidAfter: Date
    }

    /// A device certificate signed by `signer`, or by the device's own key when it is nil.
    private static func makeDevice(name: String, key: P256.Signing.PrivateKey, signer: Signer?, caCertificatePEM: String,
                                   now: Date) throws -> DeviceIdentity {
        let publicKey = Certificate.PublicKey(key.publicKey)
        let deviceCertificate = try makeDeviceCertificate(for: publicKey, signer: signer, selfSigningKey: Certificate.PrivateKey(key), now: now)
        return try DeviceIdentity(
            deviceName: name,
            certificatePEM: deviceCertificate.serializeAsPEM().pemString,
            privateKeyPEM: key.pemRepresentation,
            caCertificatePEM: caCertificatePEM
        )
    }

    /// A certificate from this account's CA for the device whose key is `publicKey`: how a
    /// rotation re-issues the certificates of the devices that stay.
    func issueCertificate(for publicKey: Certificate.PublicKey, now: Date) throws -> Certificate {
        try Self.makeDeviceCertificate(for: publicKey, signer: signer, selfSigningKey: nil, now: now)
    }

    private var signer: Signer {
        get throws {
            Signer(name: certificate.subject, key: signingKey,
                   keyIdentifier: try certificate.extensions.subjectKeyIdentifier?.keyIdentifier,
                   notValidAfter: certificate.notValidAfter)
        }
    }

    private static func makeDeviceCertificate(for publicKey: Certificate.PublicKey, signer: Signer?, selfSigningKey: Certificate.PrivateKey?,
                                              now: Date) throws -> Certificate {
        let deviceID = try KeyDigests.deviceID(publicKey: publicKey)
        let subject = try DistinguishedName {
            OrganizationName("ubiq")
            CommonName(deviceID.rawValue)
        }
        guard let signer = signer ?? selfSigningKey.map({ Signer(name: subject, key: $0, keyIdentifier: nil, notValidAfter: now + validity) }) else {
            throw IdentityError(.invalidCertificate, "A device certificate needs a signer.")
        }
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now - backdating,
            notValidAfter: min(now + validity, signer.notValidAfter),
            issuer: signer.name,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
                SubjectKeyIdentifier(hash: publicKey)
                if let keyIdentifier = signer.keyIdentifier {
                    AuthorityKeyIdentifier(keyIdentifier: keyIdentifier)
                }
            },
            issuerPrivateKey: signer.key
        )
    }
}

/// Printing an account never shows its private key.
extension Account: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "Account(\(identityToken.prefix(16)))" }
    public var debugDescription: String { description }
}
