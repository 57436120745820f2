import Logging
import UbiqIdentity
import UbiqModel
import UbiqTransport
import UbiqWire

/// A rotation's hand-over (DESIGN.md §1, rotation): on a connection whose peer holds a
/// certificate of another generation of the account CA, the device that is ahead sends the
/// rotations it knows and the one behind checks and takes them, then restarts its account's
/// parts with the new certificate. Nothing else passes on such a connection, and it closes.
struct RotationHandOver: Sendable {
    let store: IdentityStore
    /// Checks and takes rotations; true when this device took a new CA.
    let take: @Sendable ([AccountRotation]) async throws -> Bool
    let isRevoked: @Sendable (DeviceID) -> Bool
    let logger: Logger
    /// How long a hand-over may take before the connection is dropped.
    static let deadline: Duration = .seconds(10)

    func run(_ connection: PeerConnection) async {
        var peerLogger = logger
        peerLogger[metadataKey: "peer"] = "\(connection.remoteDeviceID)"
        peerLogger[metadataKey: "address"] = "\(connection.remoteAddress)"
        let logger = peerLogger
        do {
            try await withDeadline(closing: connection) {
                switch connection.standing {
                case .member:
                    return
                case .behind:
                    try await send(on: connection, logger: logger)
                case .ahead:
                    try await receive(on: connection, logger: logger)
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
        guard let frame = try await frames.next() else { throw HandOverError("the peer closed before it sent the account's rotation") }
        guard case .accountRotations(let message) = try Ubiq_Wire_Envelope(payload: frame).message else {
            throw HandOverError("the peer's first message was not the account's rotation")
        }
        let rotations = try AccountRotationMapping.rotations(message)
        if let removed = rotations.first(where: { isRevoked($0.rotator) }) {
            throw HandOverError("the rotation was made by \(removed.rotator), a device removed from the account")
        }
        if try await take(rotations) {
            logger.notice("took the account's rotation from a peer", metadata: ["generation": "\(rotations.last?.generation ?? 0)"])
        }
    }

    /// Runs `work`; at the deadline the connection closes, which ends whatever `work` waits on.
    private func withDeadline(closing connection: PeerConnection, _ work: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: Self.deadline)
                await connection.close()
                throw HandOverError("the hand-over did not finish within \(Self.deadline)")
            }
            try await group.next()
            group.cancelAll()
        }
    }
}

/// Why a rotation's hand-over did not happen.
struct HandOverError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
