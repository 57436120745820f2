/// Bytes that may be held at once by work of one kind (chunks read for peers and not yet
/// sent), shared by every peer session: a request waits until its bytes fit, in the order
/// requests came. Syncthing bounds the bytes of requests it serves the same way, with a
/// byte semaphore. A request larger than the whole budget waits until nothing else holds
/// any, then takes it all.
public actor ByteBudget {
    public nonisolated let limit: Int
    private var held = 0
    private var waiters: [(bytes: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(limit: Int) { self.limit = max(1, limit) }

    /// Waits until `bytes` fit; returns the amount taken, to give back with ``release(_:)``.
    public func acquire(_ bytes: Int) async -> Int {
        let bytes = min(max(0, bytes), limit)
        if waiters.isEmpty && held + bytes <= limit {
            held += bytes
            return bytes
        }
        await withCheckedContinuation { waiters.append((bytes, $0)) }
        return bytes
    }

    public func release(_ bytes: Int) {
        held -= bytes
        while let first = waiters.first, held + first.bytes <= limit {
            waiters.removeFirst()
            held += first.bytes
            first.continuation.resume()
        }
    }

    /// Runs `body` holding `bytes` of the budget.
    public func with<T: Sendable>(_ bytes: Int, _ body: @Sendable () async throws -> T) async rethrows -> T {
        let taken = await acquire(bytes)
        defer { release(taken) }
        return try await body()
    }

    /// Bytes held now, for tests and status.
    public var inUse: Int { held }

    /// Requests waiting for their bytes.
    public var waiting: Int { waiters.count }
}
