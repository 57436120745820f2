import Synchronization
import UbiqModel

/// Gathers what this device holds of the versions it is assembling and sends it to its
/// peers in batches. Each peer has a queue of its own: one send to it at a time, and what
/// comes in meanwhile waits, merged, for its next. So a fast transfer sends few messages, and
/// a peer whose link is full (a slow host, a stalled one) holds up neither the puller nor
/// the word to the other peers, which need it to tell rare pieces from common ones.
final class SwarmAnnouncer: Sendable {
    /// Progress waiting to be sent, merged per version.
    private struct Batch {
        var waiting: [SwarmVersion: SwarmProgress] = [:]
        /// The order versions were first added in, so batches keep it (replays are exact).
        var order: [SwarmVersion] = []

        mutating func merge(_ progress: SwarmProgress) {
            if var waiting = waiting[progress.version] {
                waiting.held.formUnion(progress.held)
                waiting.claimed.formUnion(progress.claimed)
                waiting.ended = progress.ended
                self.waiting[progress.version] = waiting
            } else {
                waiting[progress.version] = progress
                order.append(progress.version)
            }
        }

        /// What waits, in order, leaving nothing; nil when nothing does.
        mutating func take() -> [SwarmProgress]? {
            guard !order.isEmpty else { return nil }
            defer { self = Batch() }
            return order.compactMap { waiting[$0] }
        }
    }

    private struct State {
        /// Added and not yet handed to the peers' queues.
        var intake = Batch()
        var dispatching = false
        var outgoing: [DeviceID: Batch] = [:]
        var sending: Set<DeviceID> = []
    }

    private let state = Mutex(State())

    /// Adds `progress` to what waits for every peer `recipients` names for its version, and
    /// sends each peer's batches with `send` on `executor`.
    func add(_ progress: SwarmProgress, executor: any TaskExecutor,
             recipients: @escaping @Sendable (SwarmVersion) async -> [DeviceID],
             send: @escaping @Sendable (DeviceID, [SwarmProgress]) async -> Void) {
        let start = state.withLock { state in
            state.intake.merge(progress)
            defer { state.dispatching = true }
            return !state.dispatching
        }
        guard start else { return }
        Task(executorPreference: executor) {
            while let batch = self.takeIntake() {
                for progress in batch {
                    for peer in await recipients(progress.version) {
                        self.enqueue(progress, for: peer, executor: executor, send: send)
                    }
                }
            }
        }
    }

    private func takeIntake() -> [SwarmProgress]? {
        state.withLock { state in
            guard let batch = state.intake.take() else {
                state.dispatching = false
                return nil
            }
            return batch
        }
    }

    private func enqueue(_ progress: SwarmProgress, for peer: DeviceID, executor: any TaskExecutor,
                         send: @escaping @Sendable (DeviceID, [SwarmProgress]) async -> Void) {
        let start = state.withLock { state in
            state.outgoing[peer, default: Batch()].merge(progress)
            return state.sending.insert(peer).inserted
        }
        guard start else { return }
        Task(executorPreference: executor) {
            while let batch = self.take(for: peer) { await send(peer, batch) }
        }
    }

    /// What waits for `peer`, in order; nil (and no sender to it running) when nothing does.
    private func take(for peer: DeviceID) -> [SwarmProgress]? {
        state.withLock { state in
            guard let batch = state.outgoing[peer]?.take() else {
                state.outgoing[peer] = nil
                state.sending.remove(peer)
                return nil
            }
            return batch
        }
    }
}
