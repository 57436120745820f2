import Foundation
import Synchronization

/// Waits for a child process to exit without holding a thread: a test that waited in
/// `waitUntilExit` held one of the test process's two pool threads for as long as the
/// program ran (seconds for `ubiq account join --code` on a loaded machine), and every other
/// test's next step queued behind it. Install before `run()`; Foundation calls the handler.
public final class ProcessExit: Sendable {
    private enum State {
        case running([CheckedContinuation<Void, Never>])
        case exited
    }

    private let state = Mutex(State.running([]))

    public init(of process: Process) {
        process.terminationHandler = { [self] _ in
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                guard case .running(let waiters) = state else { return [] }
                state = .exited
                return waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Returns once the process has exited.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let exited = state.withLock { state -> Bool in
                guard case .running(var waiters) = state else { return true }
                waiters.append(continuation)
                state = .running(waiters)
                return false
            }
            if exited { continuation.resume() }
        }
    }
}
