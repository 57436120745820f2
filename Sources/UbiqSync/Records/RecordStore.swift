import Logging
import UbiqIndex
import UbiqModel
import UbiqWire

/// One record store of one container on this device: saves a client's transaction as a new
/// change log in its own folder and imports it, imports the logs other devices wrote as
/// they arrive, in the order every device uses, and tells subscribers what each import did.
/// The local SQLite store (``RecordDatabase``) is a cache of the logs.
public actor RecordStore {
    public nonisolated let name: RecordStoreName
    nonisolated let device: DeviceID
    let database: RecordDatabase
    let files: any RecordLogFiles
    let wallMilliseconds: @Sendable () -> Int64
    let logger: Logger
    var clock = HybridClock()
    /// Logs read but not importable yet: they have seen a transaction not here yet.
    var waiting: [RelativePath: RecordTransaction] = [:]
    /// Logs refused, with why; kept for status until the file changes.
    public internal(set) var refused: [RelativePath: String] = [:]
    let imports = Broadcaster<RecordImportSummary>(policy: .bufferingNewest(256), endsWhenFull: true)
    /// Set when the store is deleted: nothing is saved or imported through it after.
    public private(set) var isDeleted = false
    /// Transactions beyond the newest baseline before this device acknowledges what it
    /// imported and, where it is the one to, compacts the store.
    let compactAfter: Int
    /// Devices removed from the account: they no longer hold compaction back.
    let isRemoved: @Sendable (DeviceID) -> Bool
    /// What this device last wrote it had imported.
    var acknowledged = VersionVector.empty
    /// The point of the newest baseline this store knows of.
    var baselinePoint = VersionVector.empty

    public init(name: RecordStoreName, device: DeviceID, database: RecordDatabase, files: any RecordLogFiles,
                wallMilliseconds: @escaping @Sendable () -> Int64, compactAfter: Int = 1000,
                isRemoved: @escaping @Sendable (DeviceID) -> Bool = { _ in false }, logger: Logger) {
        self.name = name
        self.isRemoved = isRemoved
        self.compactAfter = max(1, compactAfter)
        self.device = device
        self.database = database
        self.files = files
        self.wallMilliseconds = wallMilliseconds
        self.logger = logger
    }

    /// What each import of other devices' logs did, as it happens.
    public nonisolated func didImport() -> AsyncStream<RecordImportSummary> { imports.subscribe() }

    /// Saves `changes` as one transaction of this device, all or nothing: checked against the
    /// records as they are here (an insert of a record that exists, or an update or delete of
    /// one that does not, is refused), written as a new log, then imported here.
    public func save(_ changes: [RecordChange]) throws -> RecordTransaction {
        guard !isDeleted else { throw RecordError(.storeDeleted, "record store \(name) was deleted; save again to make it anew") }
        for change in changes {
            let alive = try database.state(of: change.key)?.isAlive ?? false
            switch change {
            case .insert where alive:
                throw RecordError(.invalidTransaction, "record \(change.key) exists: update it, or delete it first")
            case .update where !alive, .delete where !alive:
                throw RecordError(.invalidTransaction, "no record \(change.key) in store \(name): insert it first")
            default: break
            }
        }
        let imported = try database.imported()
        let counter = imported[device] + 1
        let version = imported.merged(with: VersionVector([device: counter]))
        let transaction = RecordTransaction(store: name, author: device, version: version, clock: try nextClock(),
                                            changes: changes)
        try transaction.validate()
        let path = try RecordLogLayout.path(store: name, device: device, counter: counter)
        try files.createLog(RecordLogCoding.encode(transaction), at: path)
        _ = try database.importTransactions([transaction])
        logger.debug("saved a record transaction", metadata: ["store": "\(name)", "transaction": "\(transaction.dot)", "changes": "\(changes.count)"])
        return transaction
    }

    /// A clock later than this device's last and than every transaction imported, so the
    /// order by clock stays causal even after a peer's clock ran far ahead.
    private func nextClock() throws -> HybridTimestamp {
        let now = wallMilliseconds()
        let latest = try database.latestClock()
        if let latest { clock.observe(latest, now: now) }
        var next = clock.tick(now: now)
        // The clock takes a peer's at most a day ahead of now; the transaction still follows it.
        if let latest, latest >= next { next = HybridTimestamp(wall: latest.wall, logical: latest.logical &+ 1) }
        clock = HybridClock(last: max(clock.last, next))
        return next
    }

    /// Reads the logs at `paths` (those of this store; others are left alone), imports what
    /// can be, and tells subscribers what changed. A log that is damaged, claims another
    /// store, device or counter than its path, or goes against the order is refused and kept
    /// in ``refused``; the others still import.
    @discardableResult
    public func importLogs(_ paths: [RelativePath]) -> RecordImportSummary {
        guard !isDeleted else { return RecordImportSummary() }
        var fresh: [RelativePath: RecordTransaction] = [:]
        for path in paths {
            guard let named = RecordLogLayout.log(at: path), named.store == name else { continue }
            refused[path] = nil
            do {
                let transaction = try RecordLogCoding.decode(try files.readLog(at: path, limit: RecordLogCoding.maxFileBytes))
                guard transaction.store == named.store, transaction.author == named.device, transaction.counter == named.counter else {
                    throw RecordError(.invalidLog, "the log holds transaction \(transaction.dot) of store \(transaction.store), not what its path names")
                }
                if let seen = try database.clock(of: transaction.dot), seen != transaction.clock { return rebuilt(after: path) }
                fresh[path] = transaction
            } catch {
                refuse(path, because: "\(error)")
            }
        }
        do {
            var summary = RecordImportSummary()
            var pending = fresh
            if !waiting.isEmpty {
                // What waits becomes importable only once something new is: the new logs alone
                // first, so thousands waiting are not sorted again for each log that arrives.
                let first = try importOrdered(fresh)
                summary.merge(first.summary)
                waiting.merge(first.waiting) { _, new in new }
                if first.imported == 0 { return finish(summary) }
                pending = waiting
            }
            let rest = try importOrdered(pending)
            summary.merge(rest.summary)
            waiting = rest.waiting
            return finish(summary)
        } catch {
            logger.error("cannot import record transactions", metadata: ["store": "\(name)", "error": "\(error)"])
            return RecordImportSummary()
        }
    }

    /// Imports what of `pending` can be, in the order every device uses; refuses what goes
    /// against it; returns what changed, how many were imported, and what waits.
    private func importOrdered(_ pending: [RelativePath: RecordTransaction]) throws
        -> (summary: RecordImportSummary, imported: Int, waiting: [RelativePath: RecordTransaction]) {
        let byDot = Dictionary(pending.map { ($0.value.dot, $0.key) }, uniquingKeysWith: { first, _ in first })
        let (summary, order) = try database.importTransactions(Array(pending.values))
        let waiting = Dictionary(order.waiting.compactMap { transaction in byDot[transaction.dot].map { ($0, transaction) } },
                                 uniquingKeysWith: { a, _ in a })
        for (transaction, error) in order.refused { if let path = byDot[transaction.dot] { refuse(path, because: error.reason) } }
        return (summary, order.ready.count, waiting)
    }

    private func finish(_ summary: RecordImportSummary) -> RecordImportSummary {
        if !summary.isEmpty {
            logger.debug("imported record transactions", metadata: ["store": "\(name)", "waiting": "\(waiting.count)"])
            imports.yield(summary)
        }
        return summary
    }

    /// A log names a transaction imported here but holds another: the store was deleted and
    /// made anew while this device was away. Its records go and it is built again from the
    /// logs there are now; subscribers hear both.
    private func rebuilt(after path: RelativePath) -> RecordImportSummary {
        logger.notice("record store was made anew elsewhere; rebuilding it from its logs", metadata: ["store": "\(name)", "path": "\(path)"])
        var summary = RecordImportSummary()
        do {
            summary.deleted = try database.allRecords().map(\.key)
            try database.removeAll()
            waiting = [:]
            refused = [:]
            // Told first, so a subscriber's records go before the new ones arrive.
            if !summary.isEmpty { imports.yield(summary) }
            summary.merge(try catchUp())
        } catch {
            logger.error("cannot rebuild a record store", metadata: ["store": "\(name)", "error": "\(error)"])
        }
        return summary
    }

    /// Brings the store up to date with its folder: starts again from the newest baseline
    /// where this device is behind it, then imports every log not imported yet. At start,
    /// and to rebuild a lost local store.
    @discardableResult
    public func catchUp() throws -> RecordImportSummary {
        var summary = RecordImportSummary()
        if let newest = try newestBaseline() { summary.merge(try adoptBaseline(at: newest)) }
        summary.merge(try importNewLogs())
        return summary
    }

    /// Imports every log of the store past what is imported here.
    func importNewLogs() throws -> RecordImportSummary {
        let folder = try RecordLogLayout.folder(of: name)
        let imported = try database.imported()
        var paths: [RelativePath] = []
        for device in try files.names(in: folder) {
            guard DeviceID.isWellFormed(device) else { continue }
            for file in try files.names(in: try folder.appending(device)) {
                guard let path = try? folder.appending(device).appending(file), let log = RecordLogLayout.log(at: path),
                      log.counter > imported[log.device] else { continue }
                paths.append(path)
            }
        }
        return importLogs(paths)
    }

    /// How many transactions are imported here, how many logs wait for one they have seen,
    /// and the logs refused with why.
    public func progress() throws -> (imported: Int, waiting: Int, refused: [RelativePath: String]) {
        (Int(clamping: try database.imported().total), waiting.count, refused)
    }

    /// The live records of `query.entity` that match it, in its order.
    public func fetch(_ query: RecordQuery) throws -> [(key: RecordKey, values: [RecordName: RecordValue])] {
        query.run(try database.records(of: query.entity))
    }

    /// Ends the store on this device, its logs gone: every live record is reported deleted to
    /// subscribers, whose streams then end. The caller removes the SQLite file.
    public func markDeleted() {
        guard !isDeleted else { return }
        isDeleted = true
        var summary = RecordImportSummary()
        do { summary.deleted = try database.allRecords().map(\.key) } catch {
            logger.warning("cannot list a deleted record store's records", metadata: ["store": "\(name)", "error": "\(error)"])
        }
        if !summary.isEmpty { imports.yield(summary) }
        imports.finishAll()
        waiting = [:]
        refused = [:]
    }

    func refuse(_ path: RelativePath, because reason: String) {
        refused[path] = reason
        logger.warning("refused a record change log", metadata: ["store": "\(name)", "path": "\(path)", "reason": "\(reason)"])
    }
}
