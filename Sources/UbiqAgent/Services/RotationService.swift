import Logging
import ServiceLifecycle
import UbiqIdentity
import UbiqSync
import UbiqTransport

/// Takes the account rotations peers send over their open sessions (a member rotated the
/// account while this device was connected): checks each against this device's CA and
/// takes the newest, refusing any made or passed on by a removed device.
struct RotationService: Service {
    let devices: AccountDevices
    let take: @Sendable ([AccountRotation]) async throws -> Bool
    let logger: Logger

    func run() async throws {
        for await received in devices.rotationsReceived.cancelOnGracefulShutdown() {
            do {
                let rotations = try AccountRotationMapping.rotations(received.message)
                if devices.isRevoked(received.from) { throw HandOverError("it came from \(received.from), a device removed from the account") }
                if let removed = rotations.first(where: { devices.isRevoked($0.rotator) }) {
                    throw HandOverError("it was made by \(removed.rotator), a device removed from the account")
                }
                if try await take(rotations) {
                    logger.notice("took the account's rotation over an open connection",
                                  metadata: ["peer": "\(received.from)", "generation": "\(rotations.last?.generation ?? 0)"])
                }
            } catch {
                logger.warning("refused an account rotation", metadata: ["peer": "\(received.from)", "error": "\(error)"])
            }
        }
    }
}

extension RotationService: CustomStringConvertible {
    var description: String { "RotationService" }
}
