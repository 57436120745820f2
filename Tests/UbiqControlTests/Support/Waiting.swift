import Synchronization

struct TimedOut: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "gave up after \(seconds) s" }
}

/// Runs `body`, failing with ``TimedOut`` if it takes longer than `seconds` (a deadline so a
/// broken server fails the test instead of hanging it, not a stand-in for synchronisation).
func withDeadline<T: Sendable>(
    _ seconds: Double = 20, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimedOut(seconds: seconds)
        }
        let result = try await group.next()!
        group.cancelAll()
        return result
    }
}

/// A one-way latch: ``wait()`` returns once ``open()`` has been called.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    var isOpen: Bool { state.withLock { $0.open } }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if ready { continuation.resume() }
        }
    }
}
