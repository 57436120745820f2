import UbiqModel

/// Changes from peers that could not be applied (a full disk, a folder in the way), kept
/// until they succeed or are no longer needed, so status and events can say what is stuck
/// and why instead of only the log.
extension ContainerSync {
    /// One change that failed, with why.
    public struct ApplyFailure: Sendable, Hashable {
        public var item: Item
        public var reason: String
    }

    /// Notes a failed attempt; subscribers hear of it when the reason is new for that path.
    func failed(_ item: Item, _ error: any Error) {
        let reason = "\(error)"
        guard applyFailures[item.path]?.reason != reason else { return }
        let failure = ApplyFailure(item: item, reason: reason)
        applyFailures[item.path] = failure
        failureFeed.yield(failure)
    }

    /// Forgets failures of paths now written, or no longer needed.
    func settled(_ paths: some Sequence<RelativePath>) {
        guard !applyFailures.isEmpty else { return }
        for path in paths { applyFailures[path] = nil }
    }

    func keepFailures(of needs: [Item]) {
        guard !applyFailures.isEmpty else { return }
        let needed = Set(needs.map(\.path))
        applyFailures = applyFailures.filter { needed.contains($0.key) }
    }

    /// Failed changes now, by path.
    public func failures() -> [ApplyFailure] {
        applyFailures.values.sorted { $0.item.path < $1.item.path }
    }

    /// Every failure from now on, when its reason is new for its path.
    public nonisolated func failureEvents() -> AsyncStream<ApplyFailure> { failureFeed.subscribe() }
}
