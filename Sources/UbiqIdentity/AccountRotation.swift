import Crypto
import Foundation
import UbiqModel
import X509

/// One change of the account's CA, made after a device is removed (the removed device held
/// the CA key and could sign itself new certificates): a new CA, a certificate from it for
/// every device that stays, and the new CA's certificate signed by the CA it replaces, so
/// that each member checks the rotation against the CA it already trusts. Kept by every
/// member, so that any of them can hand it over to a member that was offline.
public struct AccountRotation: Sendable, Codable, Equatable {
    /// 1 for the account's first rotation, one more for each after it.
    public let generation: Int
    /// The CA this rotation replaced (certificate DER).
    public let previousAuthority: Data
    /// The new CA's self-signed certificate (DER).
    public let authority: Data
    /// The new CA's certificate signed by the previous CA (DER).
    public let crossCertificate: Data
    /// The new CA's private key (P-256 scalar): every member holds the account key. Secret:
    /// a rotation goes only to members, over their authenticated connections.
    public let authorityKey: Data
    /// A certificate from the new CA for each device that stays (DER).
    public let members: [Data]
    /// The device that made the rotation.
    public let rotator: DeviceID
    /// When, in milliseconds since 1970.
    public let rotatedAt: Int64

    public init(generation: Int, previousAuthority: Data, authority: Data, crossCertificate: Data, authorityKey: Data,
                members: [Data], rotator: DeviceID, rotatedAt: Int64) {
        self.generation = generation
        self.previousAuthority = previousAuthority
        self.authority = authority
        self.crossCertificate = crossCertificate
        self.authorityKey = authorityKey
        self.members = members
        self.rotator = rotator
        self.rotatedAt = rotatedAt
    }

    /// The most devices one rotation re-issues certificates for (the device list's limit).
    public static let maximumMembers = 10_000

    /// The member certificate for the device whose key is `publicKey` (SubjectPublicKeyInfo
    /// DER); nil when the rotation left that device out.
    func memberCertificate(for publicKey: [UInt8]) throws -> Certificate? {
        for der in members {
            let certificate = try KeyDigests.parseCertificate(der: Array(der))
            if try KeyDigests.subjectPublicKeyInfo(certificate.publicKey) == publicKey { return certificate }
        }
        return nil
    }

    /// The devices the rotation kept.
    public func memberIDs() throws -> Set<DeviceID> {
        Set(try members.map { try KeyDigests.deviceID(certificateDER: Array($0)) })
    }

    /// The new account, once everything in the rotation is checked against `current`, the
    /// CA this device trusts now: the cross-certificate is `current`'s, names the new CA's
    /// subject and key, the new CA is a self-signed CA whose key is the one enclosed and whose
    /// token is the account's, and every member certificate is the new CA's.
    func verified(after current: Account) throws -> Account {
        let cross = try KeyDigests.parseCertificate(der: Array(crossCertificate))
        let newAuthority = try KeyDigests.parseCertificate(der: Array(authority))
        guard Array(previousAuthority) == (try current.certificate.serializeAsPEM().derBytes) else {
            throw rejected("it replaces another CA than this device's")
        }
        guard AccountTrust.issued(cross, by: current.certificate) else {
            throw rejected("its cross-certificate was not signed by the account's current CA")
        }
        guard cross.subject == newAuthority.subject, cross.publicKey == newAuthority.publicKey else {
            throw rejected("its cross-certificate is not the new CA's")
        }
        let key: P256.Signing.PrivateKey
        do { key = try P256.Signing.PrivateKey(rawRepresentation: authorityKey) } catch {
            throw rejected("its CA key is not a P-256 key")
        }
        let account = try Account(certificate: newAuthority, privateKey: key)
        guard account.identityToken == current.identityToken else {
            throw rejected("it names another account")
        }
        guard members.count <= Self.maximumMembers else { throw rejected("it lists more than \(Self.maximumMembers) devices") }
        for der in members {
            guard account.issued(try KeyDigests.parseCertificate(der: Array(der))) else {
                throw rejected("a member certificate was not issued by the new CA")
            }
        }
        return account
    }

    private func rejected(_ reason: String) -> IdentityError {
        IdentityError(.invalidCertificate, "The account rotation \(generation) by \(rotator) was refused: \(reason).")
    }
}

/// Printing a rotation never shows the CA key it carries.
extension AccountRotation: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "AccountRotation(\(generation) by \(rotator), \(members.count) members)" }
    public var debugDescription: String { description }
}

extension Account {
    /// Rotates the account: a new CA that keeps the identity token, its certificate signed by
    /// this CA, and a certificate from it for each device in `keeping` (their public keys,
    /// SubjectPublicKeyInfo DER). `generation` is the new CA's (one more than this one's).
    public func rotate(keeping publicKeys: [[UInt8]], generation: Int, by rotator: DeviceID,
                       now: Date = Date()) throws -> (account: Account, rotation: AccountRotation) {
        guard publicKeys.count <= AccountRotation.maximumMembers else {
            throw IdentityError(.invalidCertificate, "A rotation keeps at most \(AccountRotation.maximumMembers) devices.")
        }
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let subject = try DistinguishedName {
            OrganizationName("ubiq")
            OrganizationalUnitName(KeyDigests.rotatedAuthorityPrefix + identityToken)
            CommonName("ubiq account \(identityToken.prefix(16)) generation \(generation)")
        }
        let selfSigned = try Self.makeAuthority(subject: subject, publicKey: publicKey, issuer: subject,
                                                issuerKey: Certificate.PrivateKey(key), issuerKeyIdentifier: nil, now: now)
        let cross = try Self.makeAuthority(subject: subject, publicKey: publicKey, issuer: certificate.subject, issuerKey: signingKey,
                                           issuerKeyIdentifier: try certificate.extensions.subjectKeyIdentifier?.keyIdentifier, now: now)
        let account = try Account(certificate: selfSigned, privateKey: key)
        let members = try publicKeys.map { spki in
            let memberKey: Certificate.PublicKey
            do { memberKey = try Certificate.PublicKey(derEncoded: spki) } catch {
                throw IdentityError(.invalidCertificate, "A device's public key could not be read: \(error).")
            }
            return Data(try account.issueCertificate(for: memberKey, now: now).serializeAsPEM().derBytes)
        }
        let rotation = AccountRotation(
            generation: generation,
            previousAuthority: Data(try certificate.serializeAsPEM().derBytes),
            authority: Data(try selfSigned.serializeAsPEM().derBytes),
            crossCertificate: Data(try cross.serializeAsPEM().derBytes),
            authorityKey: Data(key.rawRepresentation),
            members: members,
            rotator: rotator,
            rotatedAt: Int64(now.timeIntervalSince1970 * 1000)
        )
        return (account, rotation)
    }
}
