import Crypto
import Foundation
import UbiqModel
import X509

/// The account's rotations in the state directory: the log of every rotation this device
/// took part in (`account/rotations.json`, 0600: it holds CA keys), written before the new
/// CA and certificate replace the old files, so that a crash in between is finished at the
/// next load.
extension IdentityStore {
    /// The rotations this device knows, oldest first.
    public func rotations() throws -> [AccountRotation] {
        guard let bytes = try PrivateFiles.readFile(rotationLog) else { return [] }
        do { return try JSONDecoder().decode([AccountRotation].self, from: Data(bytes)) } catch {
            throw IdentityError(.damagedState, "The account's rotation log \(rotationLog) cannot be read (\(error)); run `ubiq account leave` and join the account again.")
        }
    }

    /// The account CA's generation on this device: 0 until the first rotation.
    public func generation() throws -> Int { try rotations().last?.generation ?? 0 }

    /// Rotates the account from this device: a new CA and certificates for this device and
    /// for the devices whose public keys (SubjectPublicKeyInfo DER) are in `keeping`.
    public func rotate(keeping publicKeys: [[UInt8]], by rotator: DeviceID, now: Date = Date()) throws -> AccountRotation {
        guard let identity = try load(), let account = try loadAccount() else {
            throw IdentityError(.noAccount, "There is no account in \(state.path) to rotate.")
        }
        let mine = try KeyDigests.subjectPublicKeyInfo(certificateDER: identity.certificateDER)
        var keys = [mine]
        for key in publicKeys where !keys.contains(key) { keys.append(key) }
        let rotation = try account.rotate(keeping: keys, generation: try generation() + 1, by: rotator, now: now).rotation
        _ = try apply([rotation])
        return rotation
    }

    /// Takes the rotations this device missed from `rotations` (a peer's log), checks each
    /// against the CA before it, and makes the newest CA and this device's certificate from
    /// it the stored identity. Returns the new identity, or nil when there was nothing new.
    /// Throws, changing nothing, when a rotation does not check out or leaves this device out.
    public func apply(_ rotations: [AccountRotation]) throws -> DeviceIdentity? {
        guard let identity = try load(), var account = try loadAccount() else {
            throw IdentityError(.noAccount, "There is no account in \(state.path) to rotate.")
        }
        var log = try self.rotations()
        let newer = rotations.filter { $0.generation > (log.last?.generation ?? 0) }.sorted { $0.generation < $1.generation }
        guard let newest = newer.last else { return nil }
        for (offset, rotation) in newer.enumerated() {
            guard rotation.generation == (log.last?.generation ?? 0) + 1 + offset else {
                throw IdentityError(.invalidCertificate, "The account rotations skip generation \((log.last?.generation ?? 0) + 1 + offset).")
            }
            account = try rotation.verified(after: account)
        }
        let mine = try KeyDigests.subjectPublicKeyInfo(certificateDER: identity.certificateDER)
        guard try newest.memberCertificate(for: mine) != nil else {
            throw IdentityError(.invalidCertificate, "The account was rotated without this device (\(identity.deviceID)): it was removed from the account.")
        }
        log.append(contentsOf: newer)
        try PrivateFiles.writeFile(Array(try JSONEncoder().encode(log)), to: rotationLog)
        try finishRotation()
        return try load()
    }

    /// Makes the stored CA, CA key and device certificate those of the newest rotation in the
    /// log, where they are not yet (the log is written first).
    func finishRotation() throws {
        guard let newest = try rotations().last, let stored = try state.read(.caCertificate),
              let storedDER = try? Certificate(pemEncoded: stored).serializeAsPEM().derBytes,
              storedDER != Array(newest.authority),
              let deviceCertificate = try state.read(.deviceCertificate)
        else { return }
        let mine = try KeyDigests.subjectPublicKeyInfo(certificateDER: try Certificate(pemEncoded: deviceCertificate).serializeAsPEM().derBytes)
        guard let certificate = try newest.memberCertificate(for: mine) else {
            throw IdentityError(.damagedState, "The account's rotation log leaves this device out; run `ubiq account leave` and join the account again.")
        }
        let key = try P256.Signing.PrivateKey(rawRepresentation: newest.authorityKey)
        try state.write(try certificate.serializeAsPEM().pemString, to: .deviceCertificate)
        try state.write(key.pemRepresentation, to: .caKey)
        try state.write(try Certificate(derEncoded: Array(newest.authority)).serializeAsPEM().pemString, to: .caCertificate)
    }

    /// The identity's hand-over parts from the log: the CAs rotations replaced and their
    /// cross-certificates.
    func withRotations(_ identity: DeviceIdentity) throws -> DeviceIdentity {
        let log = try rotations()
        var identity = identity
        identity.previousAuthoritiesDER = log.map { Array($0.previousAuthority) }
        identity.crossCertificatesDER = log.reversed().map { Array($0.crossCertificate) }
        return identity
    }

    var rotationLog: String { state.path + "/account/rotations.json" }
}
