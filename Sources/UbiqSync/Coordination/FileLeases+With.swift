extension FileLeases {
    /// Runs `body` holding `claims`, and lets them go however it ends: the one way the agent
    /// holds a lease around its own work. Waits up to `wait` for a client's conflicting lease
    /// to end (nil: only tries); nil when the claims could not be had.
    public func with<T, E: Error>(
        _ claims: [Claim], for holder: Holder, wait: Duration?, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(E) -> T
    ) async throws(E) -> T? {
        let lease = if let wait { await acquire(claims, for: holder, timeout: wait) } else { await tryAcquire(claims, for: holder) }
        guard let lease else { return nil }
        do {
            let result = try await body()
            await release(lease.id)
            return result
        } catch {
            await release(lease.id)
            throw error
        }
    }
}
