import Synchronization

/// Fans values out to any number of `AsyncStream` subscribers; a subscriber is dropped when
/// its stream ends. Each subscriber buffers per `policy`, so a slow one never blocks the
/// sender. With `endsWhenFull`, a subscriber whose buffer is full is ended instead of losing
/// values silently: its stream finishes after what it holds, and its reader can tell its
/// client that it fell behind.
final class Broadcaster<Element: Sendable>: Sendable {
    private let subscribers = Mutex<(next: Int, continuations: [Int: AsyncStream<Element>.Continuation], finished: Bool)>((0, [:], false))
    private let policy: AsyncStream<Element>.Continuation.BufferingPolicy
    private let endsWhenFull: Bool

    init(policy: AsyncStream<Element>.Continuation.BufferingPolicy, endsWhenFull: Bool = false) {
        self.policy = policy
        self.endsWhenFull = endsWhenFull
    }

    /// A new subscription; `initial`, if given, is its first element.
    func subscribe(initial: Element? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: policy)
        let key: Int? = subscribers.withLock { state in
            guard !state.finished else { return nil }
            defer { state.next += 1 }
            state.continuations[state.next] = continuation
            return state.next
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: key) }
        }
        if let initial { continuation.yield(initial) }
        return stream
    }

    /// Ends every subscription after what it holds, and any made from now on at once: the
    /// source is going away.
    func finishAll() {
        let continuations = subscribers.withLock { state in
            state.finished = true
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    var hasSubscribers: Bool { subscribers.withLock { !$0.continuations.isEmpty } }

    func yield(_ element: Element) {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) {
            if case .dropped = continuation.yield(element), endsWhenFull { continuation.finish() }
        }
    }
}
