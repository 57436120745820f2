import Logging
import ServiceLifecycle
import UbiqSync

/// Takes the account rotations peers send over their open sessions (a member rotated the
/// account while this device was connected), through the ``RotationIntake``.
struct RotationService: Service {
    let devices: AccountDevices
    let intake: RotationIntake
    let logger: Logger

    func run() async throws {
        for await received in devices.rotationsReceived.cancelOnGracefulShutdown() {
            do {
                if let taken = try await intake.receive(received.message, from: received.from) {
                    logger.notice("took the account's rotation over an open connection",
                                  metadata: ["peer": "\(received.from)", "generation": "\(taken.last?.generation ?? 0)"])
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
