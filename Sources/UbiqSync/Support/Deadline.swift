/// Why an operation run ``withDeadline(_:clock:_:)`` stopped.
public struct DeadlineExceeded: Error, Sendable, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "no answer within \(limit)" }
}

/// Runs `operation` and returns its result, or cancels it and throws ``DeadlineExceeded``
/// once `limit` has passed. Structured: nothing of the operation outlives the call, so the
/// operation must end when cancelled (every await in it that may wait long must).
public func withDeadline<T: Sendable>(
    _ limit: Duration, clock: any EngineClock = SystemClock(), _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await clock.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else { throw DeadlineExceeded(limit: limit) }
        return result
    }
}
