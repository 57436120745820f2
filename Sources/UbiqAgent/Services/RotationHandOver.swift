import Logging
import UbiqIdentity
import UbiqSync
import UbiqTransport
import UbiqWire

/// A rotation's hand-over (DESIGN.md §1, rotation): on a connection whose peer holds a
/// certificate of another generation of the account CA, the device that is ahead sends the
/// rotations it knows and the one behind checks and takes them, then restarts its account's
/// parts with the new certificate. Nothing else passes on such a connection, and it closes.
struct RotationHandOver: Sendable {
    let store: IdentityStore
    let intake: RotationIntake
    let logger: Logger
    /// How long a hand-over may take before the connection is dropped.
    static let deadline: Duration = .seconds(10)

    func run(_ connection: PeerConnection) async {
        var peerLogger = logger
        peerLogger[metadataKey: "peer"] = "\(connection.remoteDeviceID)"
        peerLogger[metadataKey: "address"] = "\(connection.remoteAddress)"
        let logger = peerLogger
        do {
            // Whatever the hand-over waits on ends when the connection closes.
            try await withDeadline(Self.deadline) {
                try await withTaskCancellationHandler {
                    switch connection.standing {
                    case .member:
                        return
                    case .behind:
                        try await send(on: connection, logger: logger)
                    case .ahead:
                        try await receive(on: connection, logger: logger)
                    }
                } onCancel: {
                    Task { await connection.close() }
                }
            }
        } catch {
            logger.warning("account rotation hand-over failed", metadata: ["error": "\(error)"])
        }
        await connection.close()
    }

    /// This device is ahead: it sends its rotations and waits for the peer to close, which
    /// it does once it has taken them.
    private func send(on connection: PeerConnection, logger: Logger) async throws {
        let rotations = try store.rotations()
        try await connection.send(Ubiq_Wire_Envelope(.accountRotations(AccountRotationMapping.message(rotations))).frame())
        logger.info("handed the account's rotation to a device that missed it", metadata: ["generation": "\(rotations.last?.generation ?? 0)"])
        for try await _ in connection.frames {}
    }

    /// This device is behind: it takes the peer's rotations, checked against its own CA.
    private func receive(on connection: PeerConnection, logger: Logger) async throws {
        var frames = connection.frames.makeAsyncIterator()
        guard let frame = try await frames.next() else { throw RotationRefused("the peer closed before it sent the account's rotation") }
        guard case .accountRotations(let message) = try Ubiq_Wire_Envelope(payload: frame).message else {
            throw RotationRefused("the peer's first message was not the account's rotation")
        }
        if let taken = try await intake.receive(message, from: connection.remoteDeviceID) {
            logger.notice("took the account's rotation from a peer", metadata: ["generation": "\(taken.last?.generation ?? 0)"])
        }
    }
}
