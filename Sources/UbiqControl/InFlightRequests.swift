import Synchronization

/// Counts a connection's running requests so that, once its input ends, the server can let
/// them answer for a while before it cancels them.
final class InFlightRequests: Sendable {
    private struct State {
        var running = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    func started() { state.withLock { $0.running += 1 } }

    func finished() {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns when nothing runs, when `timeout` has passed, or when the task is cancelled.
    func waitUntilIdle(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitUntilIdle() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitUntilIdle() async {
        let token = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.running == 0 || Task.isCancelled { return true }
                    state.waiters[token] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: token) }
            waiter?.resume()
        }
    }
}
