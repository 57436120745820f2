import UbiqModel

/// File coordination (NSFileCoordinator's rules) for every container of the agent: clients
/// and the agent itself take read or write leases on paths before they read or replace
/// files. Readers share; a writer excludes everyone. A lease on a folder covers what is
/// inside it, so leases conflict when one path lies inside the other.
///
/// Waiters are served in arrival order: a waiting writer is not passed by readers that
/// came after it, so a stream of readers cannot starve it.
public actor FileLeases {
    public enum Access: String, Sendable, Codable {
        case read, write
    }

    /// One path of a lease request; a nil path is the whole container.
    public struct Claim: Sendable, Hashable {
        public var container: ContainerID
        public var path: RelativePath?
        public var access: Access

        public init(container: ContainerID, path: RelativePath?, access: Access) {
            self.container = container
            self.path = path
            self.access = access
        }

        func conflicts(with other: Claim) -> Bool {
            guard container == other.container, access == .write || other.access == .write else { return false }
            guard let path, let otherPath = other.path else { return true }
            return path.isInside(otherPath) || otherPath.isInside(path)
        }
    }

    /// Who holds a lease, for status and logs: a control connection, or the agent itself.
    public enum Holder: Sendable, Hashable, CustomStringConvertible {
        case client(connection: UInt64)
        case agent(String)

        public var description: String {
            switch self {
            case .client(let connection): "control connection \(connection)"
            case .agent(let task): "agent (\(task))"
            }
        }
    }

    public struct Lease: Sendable, Hashable {
        public let id: UInt64
        public let claims: [Claim]
        public let holder: Holder
    }

    private var held: [UInt64: Lease] = [:]
    private var waiting: [(lease: Lease, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextID: UInt64 = 1
    private let released = Broadcaster<Void>(policy: .bufferingNewest(1))
    /// Clients' write claims, with when their leases ended: what a coordinated write deleted
    /// reaches the agent's scan a little later, through the watcher.
    private var endedWrites: [(claim: Claim, ended: ContinuousClock.Instant)] = []

    /// How long after a client's write lease ends the deletions found inside it count as
    /// the client's (DESIGN.md §3: they are meant, and pass the mass-deletion hold).
    public static let coordinatedWriteWindow = Duration.seconds(10)

    /// The clock a wait's timeout follows and where its timer runs.
    private let environment: EngineEnvironment

    public init(environment: EngineEnvironment = .live) { self.environment = environment }

    /// Waits until every claim can be granted together, then holds them; nil after
    /// `timeout` (nothing is held then).
    public func acquire(_ claims: [Claim], for holder: Holder, timeout: Duration) async -> Lease? {
        let lease = Lease(id: nextID, claims: claims, holder: holder)
        nextID += 1
        if waiting.allSatisfy({ !Self.conflict($0.lease, lease) }) && grantable(lease) {
            held[lease.id] = lease
            return lease
        }
        let expiry = Task(executorPreference: environment.executor) { [weak self, clock = environment.clock] in
            try? await clock.sleep(for: timeout)
            await self?.giveUp(lease.id)
        }
        let granted = await withCheckedContinuation { continuation in
            waiting.append((lease, continuation))
        }
        expiry.cancel()
        return granted ? lease : nil
    }

    /// Holds the claims now if nothing conflicts, without waiting.
    public func tryAcquire(_ claims: [Claim], for holder: Holder) -> Lease? {
        let lease = Lease(id: nextID, claims: claims, holder: holder)
        guard waiting.allSatisfy({ !Self.conflict($0.lease, lease) }), grantable(lease) else { return nil }
        nextID += 1
        held[lease.id] = lease
        return lease
    }

    public func release(_ id: UInt64) {
        guard let lease = held.removeValue(forKey: id) else { return }
        grantWaiters()
        if case .client = lease.holder {
            noteEnded(lease)
            released.yield(())
        }
    }

    /// Releases every lease `holder` holds and gives up its waits (a connection ended).
    public func releaseAll(of holder: Holder) {
        let isClient = if case .client = holder { true } else { false }
        var ended = false
        for (id, lease) in held where lease.holder == holder {
            held[id] = nil
            ended = true
            if isClient { noteEnded(lease) }
        }
        for (index, entry) in waiting.enumerated().reversed() where entry.lease.holder == holder {
            waiting.remove(at: index)
            entry.continuation.resume(returning: false)
            ended = true
        }
        // A connection that held and awaited nothing (each status call of the web page) ends
        // no lease.
        guard ended else { return }
        grantWaiters()
        released.yield(())
    }

    /// Whether a client's lease (not the agent's own) currently excludes `claim`.
    public func heldByClient(_ claim: Claim) -> Bool {
        held.values.contains { lease in
            guard case .client = lease.holder else { return false }
            return lease.claims.contains { $0.conflicts(with: claim) }
        }
    }

    /// The subtrees of `container` (nil: all of it) that a client's write lease covered
    /// within the last ``coordinatedWriteWindow``.
    public func recentClientWrites(in container: ContainerID) -> [RelativePath?] {
        forgetOldWrites()
        return endedWrites.filter { $0.claim.container == container }.map(\.claim.path)
    }

    private func noteEnded(_ lease: Lease) {
        forgetOldWrites()
        let now = environment.clock.now
        endedWrites += lease.claims.filter { $0.access == .write }.map { ($0, now) }
    }

    private func forgetOldWrites() {
        let now = environment.clock.now
        endedWrites.removeAll { $0.ended + Self.coordinatedWriteWindow < now }
    }

    /// The lease of a client that currently excludes `claim`, if any.
    public func blocker(of claim: Claim) -> Lease? {
        held.values.first { $0.claims.contains { $0.conflicts(with: claim) } }
    }

    /// Yields whenever a client's lease is released, so work that skipped a leased item can
    /// retry. (The agent's own leases do not count: the agent retrying on its own releases
    /// would never rest.)
    public nonisolated func releases() -> AsyncStream<Void> { released.subscribe() }

    public var heldLeases: [Lease] { held.values.sorted { $0.id < $1.id } }

    /// How many requests are queued for a lease.
    public var waitingCount: Int { waiting.count }

    private func giveUp(_ id: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.lease.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(returning: false)
        grantWaiters()
    }

    private func grantable(_ lease: Lease) -> Bool {
        held.values.allSatisfy { !Self.conflict($0, lease) }
    }

    static func conflict(_ a: Lease, _ b: Lease) -> Bool {
        guard a.claims.count * b.claims.count > 64 else {
            return a.claims.contains { claim in b.claims.contains { claim.conflicts(with: $0) } }
        }
        // Groups of hundreds of paths: look each path and its folders up instead of comparing
        // every pair.
        return covers(a, b) || covers(b, a)
    }

    /// True when a claim of `outer` is on a path at or above a claim of `inner` (the whole
    /// container counts as above everything) and one of the two writes.
    private static func covers(_ outer: Lease, _ inner: Lease) -> Bool {
        // Per container, each claimed path ("" for the whole container) and whether any claim
        // on it writes.
        var writes: [ContainerID: [Substring: Bool]] = [:]
        for claim in outer.claims {
            let key = claim.path.map { Substring($0.rawValue) } ?? ""
            let earlier = writes[claim.container]?[key] ?? false
            writes[claim.container, default: [:]][key] = earlier || claim.access == .write
        }
        for claim in inner.claims {
            guard let paths = writes[claim.container] else { continue }
            // The claim's own path, each folder above it, then the whole container.
            var path: Substring? = claim.path.map { Substring($0.rawValue) }
            while let current = path {
                if let write = paths[current], write || claim.access == .write { return true }
                path = current.isEmpty ? nil : current.lastIndex(of: "/").map { current[..<$0] } ?? ""
            }
        }
        return false
    }

    /// Grants waiters in order; one that must still wait also holds back later waiters
    /// that conflict with it.
    private func grantWaiters() {
        var stillWaiting: [(lease: Lease, continuation: CheckedContinuation<Bool, Never>)] = []
        for entry in waiting {
            if grantable(entry.lease) && stillWaiting.allSatisfy({ !Self.conflict($0.lease, entry.lease) }) {
                held[entry.lease.id] = entry.lease
                entry.continuation.resume(returning: true)
            } else {
                stillWaiting.append(entry)
            }
        }
        waiting = stillWaiting
    }
}
