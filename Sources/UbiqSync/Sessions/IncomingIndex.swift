import UbiqIndex
import UbiqModel

/// What a session has taken in of a peer's index, per container, as one value: the last
/// sequence of the peer's updates it has seen, and the entries still waiting for their chunk
/// lists (protocol 2). The sequence recorded for the peer stays below every waiting entry, so
/// after a restart the peer sends those again; a later entry for the same path replaces a
/// waiting one (the peer's index keeps only the latest). No I/O: the session asks it what to
/// record and executes that.
struct IncomingIndex: Sendable {
    /// Entries a peer may leave waiting for chunk lists at once before it counts as flooding.
    static let maxAwaiting = 65_536

    private var seen: [ContainerID: Int64] = [:]
    /// Per container: path → the sequence of the entry waiting for its lists.
    private var awaiting: [ContainerID: [RelativePath: Int64]] = [:]
    private var awaitingCount = 0

    /// The peer's update up to `last` arrived (recorded now, or waiting for lists).
    mutating func saw(_ last: Int64, in container: ContainerID) {
        seen[container] = max(seen[container] ?? 0, last)
    }

    /// The last sequence seen of the peer's updates.
    func lastSeen(in container: ContainerID) -> Int64 { seen[container] ?? 0 }

    /// A newer entry for `path` arrived: a waiting one is dropped when its lists come.
    mutating func supersede(_ path: RelativePath, in container: ContainerID) {
        if awaiting[container]?.removeValue(forKey: path) != nil { awaitingCount -= 1 }
    }

    /// Entries that wait for their chunk lists; false (nothing taken) when the peer would
    /// leave more than ``maxAwaiting`` waiting.
    mutating func wait(for entries: [(path: RelativePath, sequence: Int64)], in container: ContainerID) -> Bool {
        let waiting = awaiting[container] ?? [:]
        let added = Set(entries.map(\.path)).filter { waiting[$0] == nil }.count
        guard awaitingCount + added <= Self.maxAwaiting else { return false }
        for entry in entries { awaiting[container, default: [:]][entry.path] = entry.sequence }
        awaitingCount += added
        return true
    }

    /// Whether the entry at `sequence` for `path` still waits (not superseded, not resolved).
    func isWaiting(_ path: RelativePath, sequence: Int64, in container: ContainerID) -> Bool {
        awaiting[container]?[path] == sequence
    }

    /// The entry for `path` no longer waits: its lists came (or it was given up).
    mutating func resolved(_ path: RelativePath, in container: ContainerID) {
        supersede(path, in: container)
    }

    /// The peer's index state to record: up to `last`, but below any entry still waiting.
    func state(of container: ContainerID, indexID: UInt64, upTo last: Int64) -> PeerIndexState {
        var reached = last
        if let waiting = awaiting[container]?.values.min() { reached = min(reached, waiting - 1) }
        return PeerIndexState(indexID: indexID, maxSequence: max(0, reached))
    }
}
