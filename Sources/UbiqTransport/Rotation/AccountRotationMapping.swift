import Foundation
import UbiqIdentity
import UbiqModel
import UbiqWire

/// Account rotations on the wire (`AccountRotations`). Decoding checks sizes and names only;
/// whether a rotation is the account's is `IdentityStore.apply`'s to check, against the CA
/// this device trusts.
public enum AccountRotationMapping {
    /// The most rotations one message carries (an account rotated this often is refused).
    public static let maximumRotations = 64
    /// The largest certificate or key one rotation carries.
    static let maximumCertificateBytes = 4096

    public static func message(_ rotations: [AccountRotation]) -> Ubiq_Wire_AccountRotations {
        var message = Ubiq_Wire_AccountRotations()
        message.rotations = rotations.suffix(maximumRotations).map { rotation in
            var wire = Ubiq_Wire_AccountRotation()
            wire.generation = UInt32(clamping: rotation.generation)
            wire.previousAuthority = rotation.previousAuthority
            wire.authority = rotation.authority
            wire.crossCertificate = rotation.crossCertificate
            wire.authorityKey = rotation.authorityKey
            wire.members = rotation.members
            wire.rotator = rotation.rotator.rawValue
            wire.rotatedAtMs = rotation.rotatedAt
            return wire
        }
        return message
    }

    /// The rotations in a peer's message; throws `WireError` for a malformed one.
    public static func rotations(_ message: Ubiq_Wire_AccountRotations) throws -> [AccountRotation] {
        guard message.rotations.count <= maximumRotations else {
            throw WireError(.malformed, "more than \(maximumRotations) account rotations")
        }
        return try message.rotations.map { wire in
            let parts = [wire.previousAuthority, wire.authority, wire.crossCertificate, wire.authorityKey]
            guard wire.generation > 0, parts.allSatisfy({ !$0.isEmpty && $0.count <= maximumCertificateBytes }),
                  !wire.members.isEmpty, wire.members.count <= AccountRotation.maximumMembers,
                  wire.members.allSatisfy({ !$0.isEmpty && $0.count <= maximumCertificateBytes }),
                  DeviceID.isWellFormed(wire.rotator), wire.rotatedAtMs >= 0 else {
                throw WireError(.malformed, "a malformed account rotation (generation \(wire.generation))")
            }
            return AccountRotation(generation: Int(wire.generation), previousAuthority: wire.previousAuthority, authority: wire.authority,
                                   crossCertificate: wire.crossCertificate, authorityKey: wire.authorityKey, members: wire.members,
                                   rotator: DeviceID(wire.rotator), rotatedAt: wire.rotatedAtMs)
        }
    }
}
