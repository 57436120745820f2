import Crypto
import SwiftASN1
import UbiqModel
import X509

/// The names ubiq derives from public keys (DESIGN.md §1), in one place so that the
/// identity store and the transport always agree on them.
public enum KeyDigests {
    /// The account's identity token: lowercase hex SHA-256 of the CA's SubjectPublicKeyInfo DER.
    public static func identityToken(caCertificateDER: [UInt8]) throws -> String {
        try identityToken(caCertificate: parseCertificate(der: caCertificateDER))
    }

    /// A short tag of the identity token for mDNS TXT records: the first 16 hex characters
    /// of SHA-256 of the token's UTF-8, so other accounts are skipped without a connection.
    public static func accountTag(identityToken: String) -> String {
        String(hex(SHA256.hash(data: Array(identityToken.utf8))).prefix(16))
    }

    /// The device ID of the device whose certificate this is (the formula of
    /// `DeviceID(publicKeyDigest:)` over the SubjectPublicKeyInfo DER).
    public static func deviceID(certificateDER: [UInt8]) throws -> DeviceID {
        try deviceID(publicKey: parseCertificate(der: certificateDER).publicKey)
    }

    /// The first CA's token is the hash of its key; a CA made by a rotation carries the
    /// account's token in its subject (``rotatedAuthorityPrefix``), so the token stays the
    /// account's across rotations. Only a CA cross-signed by the one before it is trusted, so
    /// only the account's key holders can make one.
    static func identityToken(caCertificate: Certificate) throws -> String {
        for attribute in caCertificate.subject.flatMap({ $0 }) where attribute.type == .RDNAttributeType.organizationalUnitName {
            if let text = String(attribute.value), text.hasPrefix(rotatedAuthorityPrefix) {
                let token = String(text.dropFirst(rotatedAuthorityPrefix.count))
                guard token.utf8.count == 64, token.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                    throw IdentityError(.invalidCertificate, "The account certificate names a malformed identity token.")
                }
                return token
            }
        }
        return hex(SHA256.hash(data: try subjectPublicKeyInfo(caCertificate.publicKey)))
    }

    /// How a rotated CA's subject names the account's identity token (an organizational unit).
    static let rotatedAuthorityPrefix = "ubiq account "

    /// The SubjectPublicKeyInfo DER of the certificate's key: what a device's ID hashes, and
    /// what a rotation signs a new certificate for.
    public static func subjectPublicKeyInfo(certificateDER: [UInt8]) throws -> [UInt8] {
        try subjectPublicKeyInfo(parseCertificate(der: certificateDER).publicKey)
    }

    static func deviceID(publicKey: Certificate.PublicKey) throws -> DeviceID {
        DeviceID(publicKeyDigest: SHA256.hash(data: try subjectPublicKeyInfo(publicKey)))
    }

    static func subjectPublicKeyInfo(_ key: Certificate.PublicKey) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(key)
        return serializer.serializedBytes
    }

    static func parseCertificate(der: [UInt8]) throws -> Certificate {
        do {
            return try Certificate(derEncoded: der)
        } catch {
            throw IdentityError(.invalidCertificate, "The certificate could not be parsed: \(error).")
        }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
