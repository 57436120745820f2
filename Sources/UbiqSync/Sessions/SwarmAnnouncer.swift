import Synchronization
import UbiqModel

/// Gathers what this device holds of the versions it is assembling and sends it to its
/// peers in batches: one send at a time, and what comes in meanwhile waits, merged, for the
/// next. So a fast transfer sends few messages, and a slow link never holds up the puller.
final class SwarmAnnouncer: Sendable {
    private struct State {
        var waiting: [SwarmVersion: SwarmProgress] = [:]
        /// The order versions were first added in, so batches keep it (replays are exact).
        var order: [SwarmVersion] = []
        var sending = false
    }

    private let state = Mutex(State())

    /// Adds `progress` to what waits; starts a sender on `executor` unless one runs.
    func add(_ progress: SwarmProgress, executor: any TaskExecutor, send: @escaping @Sendable ([SwarmProgress]) async -> Void) {
        let start = state.withLock { state in
            if var waiting = state.waiting[progress.version] {
                waiting.held.formUnion(progress.held)
                waiting.claimed.formUnion(progress.claimed)
                waiting.ended = progress.ended
                state.waiting[progress.version] = waiting
            } else {
                state.waiting[progress.version] = progress
                state.order.append(progress.version)
            }
            defer { state.sending = true }
            return !state.sending
        }
        guard start else { return }
        Task(executorPreference: executor) {
            while let batch = self.takeBatch() { await send(batch) }
        }
    }

    /// What waits, in order; nil (and no sender running) when nothing does.
    private func takeBatch() -> [SwarmProgress]? {
        state.withLock { state in
            guard !state.order.isEmpty else {
                state.sending = false
                return nil
            }
            defer { state.waiting = [:]; state.order = [] }
            return state.order.compactMap { state.waiting[$0] }
        }
    }
}
