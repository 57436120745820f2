import UbiqModel

/// How far each connected peer has acknowledged a store, and the `kv.synchronize` calls
/// waiting on that. A value type owned by the store's actor.
struct AcknowledgementTracker {
    struct Waiter {
        var id: Int
        var target: Int64
        /// The peers connected when the wait began.
        var peers: Set<DeviceID>
        var isDone: Bool
    }

    private var peers: [DeviceID: (session: ObjectIdentifier, sequence: Int64)] = [:]
    private var parked: [Int: (waiter: Waiter, continuation: CheckedContinuation<Void, Never>)] = [:]
    private var nextWaiter = 0

    mutating func join(_ peer: DeviceID, session: ObjectIdentifier, sequence: Int64) {
        peers[peer] = (session, sequence)
        wake()
    }

    mutating func leave(_ peer: DeviceID, session: ObjectIdentifier) {
        guard peers[peer]?.session == session else { return }
        peers[peer] = nil
        wake()
    }

    mutating func acknowledge(_ peer: DeviceID, session: ObjectIdentifier, sequence: Int64) {
        guard let current = peers[peer], current.session == session else { return }
        peers[peer] = (session, max(current.sequence, sequence))
        wake()
    }

    mutating func waiter(for target: Int64) -> Waiter {
        defer { nextWaiter += 1 }
        let connected = Set(peers.keys)
        return Waiter(id: nextWaiter, target: target, peers: connected, isDone: done(target: target, peers: connected))
    }

    mutating func park(_ waiter: Waiter, _ continuation: CheckedContinuation<Void, Never>) {
        parked[waiter.id] = (waiter, continuation)
        wake()
    }

    mutating func expire(_ id: Int) {
        parked.removeValue(forKey: id)?.continuation.resume()
    }

    func outcome(for target: Int64, peers waited: Set<DeviceID>) -> KeyValueSyncOutcome {
        var acknowledged: [DeviceID] = [], pending: [DeviceID] = []
        for peer in waited.sorted() {
            if let state = peers[peer], state.sequence >= target {
                acknowledged.append(peer)
            } else {
                pending.append(peer)
            }
        }
        return KeyValueSyncOutcome(acknowledged: acknowledged, pending: pending)
    }

    /// Done when every peer waited on has acknowledged the target or has gone.
    private func done(target: Int64, peers waited: Set<DeviceID>) -> Bool {
        waited.allSatisfy { peer in peers[peer].map { $0.sequence >= target } ?? true }
    }

    private mutating func wake() {
        for (id, entry) in parked where done(target: entry.waiter.target, peers: entry.waiter.peers) {
            parked.removeValue(forKey: id)?.continuation.resume()
        }
    }
}
