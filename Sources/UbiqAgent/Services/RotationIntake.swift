import UbiqIdentity
import UbiqModel
import UbiqTransport
import UbiqWire

/// Where account rotations a peer sent come in, over an open session or a hand-over: the
/// message is read, refused when the peer or a rotation's maker was removed from the
/// account, and otherwise given to the host, which checks each rotation against this
/// device's CA and takes the newest.
struct RotationIntake: Sendable {
    /// Checks and takes rotations; true when this device took a new CA.
    let take: @Sendable ([AccountRotation]) async throws -> Bool
    let isRevoked: @Sendable (DeviceID) -> Bool

    /// The rotations taken, or nil when there was nothing new; throws why they were refused.
    func receive(_ message: Ubiq_Wire_AccountRotations, from peer: DeviceID) async throws -> [AccountRotation]? {
        let rotations = try AccountRotationMapping.rotations(message)
        if isRevoked(peer) { throw RotationRefused("it came from \(peer), a device removed from the account") }
        if let removed = rotations.first(where: { isRevoked($0.rotator) }) {
            throw RotationRefused("it was made by \(removed.rotator), a device removed from the account")
        }
        return try await take(rotations) ? rotations : nil
    }
}

/// Why rotations a peer sent were not taken, or a hand-over did not happen.
struct RotationRefused: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
