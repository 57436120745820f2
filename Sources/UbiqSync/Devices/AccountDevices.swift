import Logging
import Synchronization
import UbiqIndex
import UbiqModel
import UbiqWire

/// The account's devices as this agent knows them (``DeviceRegistry``), kept in the index and
/// passed between peers: a session sends the whole list after the hello and again whenever
/// it changes here, so news spreads to every device and stops where it is no news. Removed
/// devices are refused at once: the transport asks ``isRevoked(_:)`` at every handshake, the
/// engine at every link, and ``removals()`` tells the engine to end their sessions.
public actor AccountDevices {
    public nonisolated let me: DeviceID
    private var registry: DeviceRegistry
    private let index: SyncIndex
    /// Whether the account signed a revocation.
    private let verify: @Sendable (Revocation) -> Bool
    private nonisolated let revoked: Mutex<Set<DeviceID>>
    private let changed = Broadcaster<Void>(policy: .bufferingNewest(1))
    private let removed = Broadcaster<[DeviceID]>(policy: .bufferingOldest(64))
    private let logger: Logger
    /// Account rotations peers sent over their sessions, for the agent to check and take.
    public nonisolated let rotationsReceived: AsyncStream<ReceivedRotations>
    private nonisolated let rotationsContinuation: AsyncStream<ReceivedRotations>.Continuation

    /// Loads what the index kept, with `me` describing this device now.
    public init(me: DeviceRecord, index: SyncIndex, verify: @escaping @Sendable (Revocation) -> Bool, logger: Logger) throws {
        self.me = me.id
        self.index = index
        self.verify = verify
        self.logger = logger
        (rotationsReceived, rotationsContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(4))
        let stored = try index.accountDevices()
        var registry = DeviceRegistry(devices: stored.devices, revocations: stored.revocations.filter(verify))
        try index.storeAccountDevices(registry.merge([me]))
        self.registry = registry
        revoked = Mutex(Set(registry.revocations.keys))
    }

    /// Whether `device` was removed from the account; callable from any thread.
    public nonisolated func isRevoked(_ device: DeviceID) -> Bool { revoked.withLock { $0.contains(device) } }

    public var current: DeviceRegistry { registry }

    /// Yields at once and whenever the registry changes.
    public nonisolated func changes() -> AsyncStream<Void> { changed.subscribe(initial: ()) }

    /// Devices newly removed, as they are removed.
    public nonisolated func removals() -> AsyncStream<[DeviceID]> { removed.subscribe() }

    /// Takes in a peer's list: revocations the account did not sign are left out and logged.
    public func receive(devices: [DeviceRecord], revocations: [Revocation], from peer: DeviceID) {
        let signed = revocations.filter(verify)
        if signed.count < revocations.count {
            logger.warning("a peer passed on revocations the account did not sign; left out",
                           metadata: ["peer": "\(peer)", "count": "\(revocations.count - signed.count)"])
        }
        apply(devices: devices, revocations: signed)
    }

    /// A peer sent the account's rotations over its session.
    public nonisolated func received(rotations: Ubiq_Wire_AccountRotations, from peer: DeviceID) {
        rotationsContinuation.yield(ReceivedRotations(message: rotations, from: peer))
    }

    /// A device of the account had a connection with `device` at `address` now.
    public func seen(_ device: DeviceID, address: String, at milliseconds: Int64) {
        guard let known = registry.devices[device] else {
            apply(devices: [DeviceRecord(id: device, name: "", containers: [], describedAt: 0, lastSeen: milliseconds, address: address)], revocations: [])
            return
        }
        var sighting = known
        sighting.lastSeen = milliseconds
        sighting.address = address
        apply(devices: [sighting], revocations: [])
    }

    /// A workstation joined the account with this device's invitation: it is listed at once,
    /// by the name it gave and the key it showed, until it describes itself.
    public func joined(_ device: DeviceID, name: String, publicKey: [UInt8]) {
        apply(devices: [DeviceRecord(id: device, name: name, containers: [], describedAt: 0, publicKey: publicKey)], revocations: [])
    }

    /// This device describes itself again, now with where it listens (known only once its
    /// listeners are open, after this registry is made).
    public func describeMe(addresses: [String]) {
        guard var record = registry.devices[me], record.addresses != addresses else { return }
        record.addresses = addresses
        record.describedAt += 1
        apply(devices: [record], revocations: [])
    }

    /// Removes a device from the account with a revocation signed here.
    public func revoke(_ revocation: Revocation) throws(DeviceRemovalError) {
        guard revocation.device != me else {
            throw DeviceRemovalError("this device cannot remove itself; sign it out with `ubiq account leave`")
        }
        guard verify(revocation) else { throw DeviceRemovalError("the revocation is not signed by the account") }
        guard !registry.isRevoked(revocation.device) else { return }
        apply(devices: [], revocations: [revocation])
    }

    private func apply(devices: [DeviceRecord], revocations: [Revocation]) {
        let newRecords = registry.merge(devices)
        let wasRevoked = Set(registry.revocations.keys)
        let newRevocations = registry.merge(revocations)
        guard !newRecords.isEmpty || !newRevocations.isEmpty else { return }
        do { try index.storeAccountDevices(newRecords, revocations: newRevocations) } catch {
            logger.error("could not store the account's devices; they are kept until the agent stops", metadata: ["error": "\(error)"])
        }
        let removedNow = newRevocations.map(\.device).filter { !wasRevoked.contains($0) }
        if !removedNow.isEmpty {
            revoked.withLock { $0.formUnion(removedNow) }
            logger.warning("devices removed from the account: their connections are refused", metadata: ["devices": "\(removedNow)"])
            removed.yield(removedNow)
        }
        changed.yield(())
    }
}

/// Why a device could not be removed.
public struct DeviceRemovalError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Account rotations as a peer sent them, not yet checked.
public struct ReceivedRotations: Sendable {
    public let message: Ubiq_Wire_AccountRotations
    public let from: DeviceID
}
