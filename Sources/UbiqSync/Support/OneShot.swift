import Synchronization

/// A value that arrives once, awaited by one task: the answer to one request. Whoever
/// resolves it first decides the outcome; a waiter that is cancelled stops waiting with
/// `CancellationError`.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Value, any Error>?)
        case done(Result<Value, any Error>)
    }

    private let state = Mutex<State>(.waiting(nil))

    init() {}

    /// Settles the value; later calls do nothing.
    func resolve(_ result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>?? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return nil }
            state = .done(result)
            return continuation
        }
        if case let continuation?? = continuation { continuation.resume(with: result) }
    }

    /// Waits for the value; one waiter only.
    var value: Value {
        get async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let ready: Result<Value, any Error>? = state.withLock { state in
                        switch state {
                        case .done(let result): return result
                        case .waiting: state = .waiting(continuation); return nil
                        }
                    }
                    if let ready { continuation.resume(with: ready) }
                }
            } onCancel: {
                resolve(.failure(CancellationError()))
            }
        }
    }
}
