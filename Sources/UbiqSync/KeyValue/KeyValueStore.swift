import Foundation
import Logging
import UbiqIndex
import UbiqModel

/// One key-value store on this device: validates local writes against the limits, stamps
/// them with a version vector and the hybrid logical clock, merges peers' entries by the
/// rules of DESIGN.md §3, and tells subscribers what changed. Keeps the live entries in
/// memory (bounded by the limits) over the index, which is the durable copy.
public actor KeyValueStore {
    public nonisolated let id: KeyValueStoreID
    nonisolated let index: SyncIndex
    public nonisolated let device: DeviceID
    public nonisolated let limits: KeyValueLimits
    /// This device's index ID for the store (peers resume from it, as for containers).
    public nonisolated let indexID: UInt64
    /// Physical time in milliseconds since 1970.
    let physicalTime: @Sendable () -> Int64
    let logger: Logger

    private var entries: [String: KeyValueEntry] = [:]
    private var clock = HybridClock()
    private var sequence: Int64 = 0
    private var hasSynced = false
    private let sequenceMoved = Broadcaster<Void>(policy: .bufferingNewest(1))
    private let changeFeed = Broadcaster<KeyValueChange>(policy: .bufferingOldest(KeyValueStore.subscriberBuffer), endsWhenFull: true)
    private var acknowledgements = AcknowledgementTracker()

    /// Notices a subscriber may fall behind by before its stream is ended (its client is told).
    public static let subscriberBuffer = 4096

    /// Set when this start found the store holding another account's entries and dropped
    /// them: every subscription of this run is told first, with the keys that went.
    private let accountChange: KeyValueChange?

    /// `account` is the identity token the store belongs to (entries of another account are
    /// dropped at start).
    public init(id: KeyValueStoreID, index: SyncIndex, device: DeviceID, account: String, limits: KeyValueLimits,
                physicalTime: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }, logger: Logger) throws {
        self.id = id
        self.index = index
        self.device = device
        self.limits = limits
        self.physicalTime = physicalTime
        var logger = logger
        logger[metadataKey: "kvstore"] = "\(id)"
        self.logger = logger
        let dropped = try index.bindKeyValueStore(id, toAccount: account)
        accountChange = dropped.map { KeyValueChange(store: id, reason: .accountChange, keys: $0) }
        if let dropped {
            logger.notice("the key-value store held another account's entries; dropped them", metadata: ["keys": "\(dropped.count)"])
        }
        let state = try index.keyValueState(id)
        sequence = state.sequence
        indexID = state.indexID
        clock = HybridClock(last: state.clock)
        for indexed in try index.keyValueEntries(id) { entries[indexed.entry.key] = indexed.entry }
        hasSynced = try index.keyValueHasSynced(id)
    }

    // MARK: reading

    public func value(for key: String) -> PropertyListValue? { entries[key]?.value }

    /// Every live key and its value.
    public func values() -> [String: PropertyListValue] { entries.compactMapValues(\.value) }

    public func usage() -> KeyValueLimits.Usage { KeyValueLimits.Usage(entries.values.lazy.compactMap(\.value)) }

    // MARK: local writes

    /// Writes several keys at once (nil removes), all or nothing: refused whole when it breaks
    /// a limit. Removing a key that is not there changes nothing.
    public func set(_ changes: [String: PropertyListValue?]) throws {
        try limits.check(changes, current: values())
        var writes: [KeyValueEntry] = []
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            let existing = entries[key]
            if value == nil && (existing == nil || existing?.isRemoved == true) { continue }
            writes.append(KeyValueEntry(key: key, value: value, version: (existing?.version ?? .empty).incremented(by: device),
                                        timestamp: clock.tick(now: physicalTime()), modifiedBy: device))
        }
        guard !writes.isEmpty else { return }
        sequence = try index.commitKeyValues(id, writes, clock: clock.last)
        for write in writes { entries[write.key] = write }
        logger.debug("key-value write", metadata: ["keys": "\(writes.map(\.key))", "sequence": "\(sequence)"])
        sequenceMoved.yield(())
    }

    // MARK: peers

    /// Yields at once and whenever the store's sequence moves (entries to send to peers).
    public nonisolated func sequenceChanges() -> AsyncStream<Void> { sequenceMoved.subscribe(initial: ()) }

    /// Takes in entries a peer sent: merges each by the rules, stores the result with how far
    /// this device has read the peer's store, and posts notices for what changed.
    public func receive(_ remote: [KeyValueEntry], from peer: DeviceID, state: PeerIndexState) throws {
        var writes: [KeyValueEntry] = []
        var changed: [String] = []
        var conflicts: [KeyValueChange.Conflict] = []
        var merged = entries
        for entry in remote {
            clock.observe(entry.timestamp, now: physicalTime())
            switch KeyValueReconciliation.reconcile(local: merged[entry.key], remote: entry) {
            case .keepLocal:
                continue
            case .applyRemote(let newer):
                if newer.value != merged[entry.key]?.value { changed.append(entry.key) }
                merged[entry.key] = newer
                writes.append(newer)
            case .conflict(let result, let winner, let loser):
                merged[entry.key] = result
                writes.append(result)
                if winner.value != loser.value {
                    conflicts.append(.init(key: entry.key, winner: winner.value, winnerDevice: winner.modifiedBy,
                                           loser: loser.value, loserDevice: loser.modifiedBy))
                }
                logger.info("concurrent key-value writes", metadata: [
                    "key": "\(entry.key)", "peer": "\(peer)", "winner": "\(winner.modifiedBy)", "version": "\(result.version)",
                ])
            }
        }
        let overBefore = limits.exceeds(usage())
        sequence = try index.commitKeyValues(id, writes, clock: clock.last, from: (peer, state))
        entries = merged
        let initial = !hasSynced
        hasSynced = true
        guard !writes.isEmpty else { return }
        sequenceMoved.yield(())
        if !changed.isEmpty {
            changeFeed.yield(KeyValueChange(store: id, reason: initial ? .initialSyncChange : .remoteChange, keys: changed.sorted()))
        }
        if !conflicts.isEmpty {
            changeFeed.yield(KeyValueChange(store: id, reason: .conflict, keys: conflicts.map(\.key).sorted(),
                                            conflicts: conflicts.sorted { $0.key < $1.key }))
        }
        let usage = usage()
        if limits.exceeds(usage) && (!overBefore || !changed.isEmpty || !conflicts.isEmpty) {
            logger.warning("key-value store over its limits after merging peers' writes", metadata: [
                "keys": "\(usage.keys)", "bytes": "\(usage.bytes)",
            ])
            changeFeed.yield(KeyValueChange(store: id, reason: .quotaViolationChange,
                                            keys: Array(Set(changed + conflicts.map(\.key))).sorted()))
        }
    }

    /// Entries with sequence above `after`, in order, for a peer.
    public nonisolated func entries(after: Int64, limit: Int) throws -> [IndexedKeyValue] {
        try index.keyValueEntries(id, after: after, limit: limit)
    }

    // MARK: change notices

    /// Notices of external changes, from now on, until the stream is dropped.
    public nonisolated func changes() -> AsyncStream<KeyValueChange> { changeFeed.subscribe(initial: accountChange) }

    /// The workstation signed out of the account: every subscriber is told, with every key,
    /// that the store's values are no longer the account's.
    public func accountEnded() {
        changeFeed.yield(KeyValueChange(store: id, reason: .accountChange, keys: entries.keys.sorted()))
    }

    /// The store is going away (its agent's syncing stops): every change subscription ends,
    /// so that its reader subscribes again to the store that replaces it.
    public nonisolated func endSubscriptions() {
        changeFeed.finishAll()
    }

    // MARK: acknowledgements

    /// A peer session sharing this store has started; `acknowledged` is how much of this
    /// store the peer said in its hello it already holds.
    public func peerJoined(_ peer: DeviceID, session: ObjectIdentifier, acknowledged: Int64) {
        acknowledgements.join(peer, session: session, sequence: acknowledged)
    }

    public func peerLeft(_ peer: DeviceID, session: ObjectIdentifier) {
        acknowledgements.leave(peer, session: session)
    }

    /// A peer has stored this store's entries up to `sequence` of index `indexID`.
    public func acknowledged(by peer: DeviceID, session: ObjectIdentifier, indexID: UInt64, sequence: Int64) {
        guard indexID == self.indexID else { return }
        acknowledgements.acknowledge(peer, session: session, sequence: sequence)
    }

    /// Waits until every peer connected now has stored what this device holds now, or one
    /// leaves, or `timeout` passes.
    public func synchronize(timeout: Duration) async -> KeyValueSyncOutcome {
        let target = sequence
        let waiter = acknowledgements.waiter(for: target)
        if waiter.isDone { return acknowledgements.outcome(for: target, peers: waiter.peers) }
        let expiry = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(waiter.id)
        }
        await withCheckedContinuation { continuation in acknowledgements.park(waiter, continuation) }
        expiry.cancel()
        return acknowledgements.outcome(for: target, peers: waiter.peers)
    }

    private func expire(_ waiter: Int) { acknowledgements.expire(waiter) }
}
