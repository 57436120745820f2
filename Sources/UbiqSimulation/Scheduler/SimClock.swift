import UbiqSync

/// A device's clock in the simulation: monotonic time is the scheduler's, and a sleep is a
/// timer there; the wall clock may be set off by a clock jump.
public struct SimClock: EngineClock {
    let scheduler: SimScheduler
    let wallOffset: @Sendable () -> Int64
    /// The wall time at which every simulated world begins (2027-01-15), so runs replay.
    static let wallOrigin: Int64 = 1_800_000_000 * 1_000_000_000

    public var now: ContinuousClock.Instant { scheduler.origin.advanced(by: scheduler.now) }

    public var wallNanoseconds: Int64 { Self.wallOrigin + scheduler.now.nanoseconds + wallOffset() }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try Task.checkCancellation()
        let at = scheduler.origin.duration(to: deadline)
        let id = scheduler.newTimerID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                scheduler.resume(continuation, at: at, id: id)
            }
        } onCancel: {
            scheduler.cancelTimer(id)
        }
    }
}

extension Duration {
    /// Whole nanoseconds, for wall-clock arithmetic in Int64.
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
