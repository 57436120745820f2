import Foundation
import Logging
import Synchronization
import UbiqChunking
import UbiqIndex
import UbiqModel

/// Keeps one container in sync: records local changes from scans, takes in peers' index
/// updates, and applies what this device needs. One actor per container, so changes to a
/// container's index are decided one at a time.
public actor ContainerSync {
    public nonisolated let id: ContainerID
    /// On-demand containers keep every item's metadata but fetch a file's content only when
    /// asked (or when a coordinated read needs it), and keep fetched files up to date.
    public nonisolated let onDemand: Bool
    /// Files being assembled now.
    public nonisolated let transfers: TransferProgress
    nonisolated let disk: any ContainerDisk
    nonisolated let index: SyncIndex
    public nonisolated let device: DeviceID
    /// The account's identity token, named in the folder's marker.
    nonisolated let account: String
    let logger: Logger
    var fetcher: (any ChunkFetcher)?
    /// The large files being assembled now, with what each holds: told to peers, and served.
    nonisolated let assemblies = Assemblies()
    /// Set by ``refuseServing()``.
    private nonisolated let servingRefused = Atomic(false)
    /// Which way the container syncs (`ContainerSync+Modes`).
    nonisolated let modeFlag = Mutex(FolderMode.sendReceive)
    /// Whether the container is paused (`ContainerSync+Pause`); read by serving and sending too.
    nonisolated let pauseFlag = Mutex(false)
    /// What is not synced and where it comes from (`ContainerSync+Ignore`).
    nonisolated let ignoreSources = Mutex(IgnoreSources())
    /// Peers' histories (``setPeerHistories(_:)``); read without the actor, by listings too.
    nonisolated let peerHistorySource = Mutex<(any PeerHistories)?>(nil)
    /// How long replaced and deleted versions are kept (``setHistory(_:)``); nil: not kept.
    private nonisolated let retention = Mutex<HistoryRetention?>(HistoryRetention())
    /// Copies kept for clients' write leases, by lease.
    var writeLeaseKeeps: [UInt64: [LeaseKeep]] = [:]
    public nonisolated var historyRetention: HistoryRetention? { retention.withLock { $0 } }
    /// Whether retention is applied by itself, at the first pass and every few minutes; when
    /// not, only `history.prune` applies it.
    private var prunesByItself = true
    /// Set once at start (``setLeases(_:)``); read without the actor, by serving too.
    private nonisolated let coordination = Mutex<FileLeases?>(nil)
    nonisolated var leases: FileLeases? { coordination.withLock { $0 } }
    /// Every sync decision's state: passes, failures, renames, case conflicts, deferred scans.
    var state = ContainerState(overtakeAfter: ContainerSync.overtakeAfter) {
        didSet { board.withLock { $0 = StatusBoard(state) } }
    }
    /// What status shows of `state`, readable while the actor is busy (a long scan).
    nonisolated let board = Mutex(StatusBoard())
    /// Where the actor's work and the tasks it starts run (off Swift's cooperative pool, since
    /// most of it blocks on the disk or the index), its clock and its chance.
    public nonisolated let environment: EngineEnvironment
    nonisolated var clock: any EngineClock { environment.clock }
    private nonisolated let executor: any SerialExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let sequenceMoved = Broadcaster<Void>(policy: .bufferingNewest(1))
    /// Every change, none dropped: the watcher must see each loss to watch the folder anew.
    let availabilityFeed = Broadcaster<Bool>(policy: .unbounded)
    private let itemFeed = Broadcaster<ItemChange>(policy: .bufferingOldest(ContainerSync.itemChangeBuffer), endsWhenFull: true)
    let failureFeed = Broadcaster<ApplyFailure>(policy: .bufferingOldest(256), endsWhenFull: true)
    let problemFeed = Broadcaster<ScanProblem>(policy: .bufferingOldest(256), endsWhenFull: true)
    /// How long a change that failed before may wait for bytes from peers, when tried
    /// again, before a second pull pass starts beside the one that waits.
    static let overtakeAfter = Duration.seconds(2)

    /// Item changes a subscriber may fall behind by before its stream is ended (it must then
    /// look again at what it follows).
    public static let itemChangeBuffer = 8192
    private let pullTrigger: AsyncStream<Void>.Continuation
    private let pullRequests: AsyncStream<Void>

    public init(id: ContainerID, disk: any ContainerDisk, index: SyncIndex, device: DeviceID, account: String = "",
                onDemand: Bool = false, environment: EngineEnvironment = .live, logger: Logger) {
        self.id = id
        self.account = account
        self.environment = environment
        self.executor = environment.executor.makeSerialExecutor()
        self.transfers = TransferProgress(clock: environment.clock)
        self.onDemand = onDemand
        self.disk = disk
        self.index = index
        self.device = device
        var logger = logger
        logger[metadataKey: "container"] = "\(id)"
        self.logger = logger
        (pullRequests, pullTrigger) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public func setFetcher(_ fetcher: any ChunkFetcher) { self.fetcher = fetcher }

    /// Answers no peer's chunk request from now on, though peers still hear what this device
    /// holds: for tests of a peer whose word is false.
    public nonisolated func refuseServing() { servingRefused.store(true, ordering: .relaxed) }

    /// Lets the history list and restore versions that connected peers keep.
    public nonisolated func setPeerHistories(_ peers: any PeerHistories) { peerHistorySource.withLock { $0 = peers } }

    /// Keeps replaced and deleted versions for as long as `retention` says; nil: frees them.
    /// `prunesByItself` false leaves applying it to `history.prune` (a test that ages versions
    /// by moving the clock).
    public func setHistory(_ retention: HistoryRetention?, prunesByItself: Bool = true) {
        self.retention.withLock { $0 = retention }
        self.prunesByItself = prunesByItself
    }

    /// Makes the container respect file coordination: it takes a write lease before it
    /// replaces a file and a read lease while it hashes or serves one.
    public func setLeases(_ leases: FileLeases) { coordination.withLock { $0 = leases } }

    /// Runs `body` holding `claims` (at once in a container without coordination); nil when
    /// a client's lease kept them for `wait` (nil: only tries).
    func leased<T, E: Error>(_ claims: [FileLeases.Claim], for holder: FileLeases.Holder, wait: Duration?,
                             _ body: () async throws(E) -> T) async throws(E) -> T? {
        guard let leases else { return try await body() }
        return try await leases.with(claims, for: holder, wait: wait, body)
    }

    /// Prepares the folder where it is this container's (`FolderCheck`); where it is not,
    /// the container is unavailable, and nothing of it is touched until the folder is back.
    public func start() throws {
        try loadPause()
        guard checkFolder() == .available else { return }
        try disk.prepare()
        reconcileHistory()
    }

    /// Records what changed on disk since the last run (status says `scanning` meanwhile),
    /// then applies needs whenever asked, until cancelled. Failed needs are retried on the
    /// next request and at least every `retryInterval`.
    public func run(retryInterval: Duration = .seconds(5)) async {
        await withTaskExecutorPreference(environment.executor) {
            refreshIgnoreRules()
            do { try scan(under: nil) } catch is FolderUnavailableError {
                // Said once, when it became unavailable; the scan runs when the folder is back.
            } catch {
                logger.error("could not scan the container; changes on disk wait for the next scan", metadata: ["error": "\(error)"])
            }
            requestPull()
            await pullUntilCancelled(retryInterval: retryInterval)
        }
    }

    private func pullUntilCancelled(retryInterval: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [pullTrigger, clock] in
                while !Task.isCancelled {
                    try? await clock.sleep(for: retryInterval)
                    pullTrigger.yield()
                }
            }
            if let leases {
                group.addTask { [weak self] in
                    for await _ in leases.releases() { await self?.leaseReleased() }
                }
            }
            // Timers only while the folder is away.
            let availability = availabilityFeed.subscribe(initial: isAvailable)
            group.addTask { [weak self, clock] in
                for await available in availability where !available {
                    while let self, !self.isAvailable, !Task.isCancelled {
                        try? await clock.sleep(for: ContainerSync.folderLookInterval)
                        await self.lookForFolder()
                    }
                }
            }
            await withDiscardingTaskGroup { pulls in
                for await _ in pullRequests {
                    if Task.isCancelled { break }
                    let failures = state.failures
                    switch state.pullAsked(at: clock.now, waitingSince: transfers.longestWaitBegan { failures[$0] != nil }) {
                    case .start:
                        pulls.addTask { await self.pullPass() }
                    case .wait(let wakeAt?):
                        pulls.addTask { [pullTrigger, clock] in
                            try? await clock.sleep(until: wakeAt)
                            pullTrigger.yield()
                        }
                    case .wait(nil):
                        break
                    }
                }
            }
            group.cancelAll()
        }
    }

    public nonisolated func requestPull() { pullTrigger.yield() }

    private func pullPass() async {
        // A paused or send-only container's pass takes nothing, and still ends, so a resume
        // can start one.
        let folder = checkFolder()
        let plan = folder == .unavailable || isPaused || mode == .sendOnly ? nil : await pullNeeds()
        if state.passEnded(plan) { requestPull() }
        guard folder != .unavailable else { return }
        if folder == .returned { await localChanges([nil]) }
        // A burst of deletions gathered is judged at the first pass after its window (passes
        // run at least every retry interval).
        if state.deletions.windowEnds(by: clock.now) { await deletionWindowEnded() }
        await scanWhatOwnLeasesHeldUp()
        guard !isPaused else { return }
        if state.keptVersionsCheckDue(at: clock.now) { await restoreMissingVersions() }
        if state.historyPruneDue(at: clock.now), prunesByItself { pruneHistory() }
        // This pass may have put a peer's `.ubiqignore` in place.
        if refreshIgnoreRules() { await localChanges([nil]) }
    }

    /// A stream that yields at once and whenever the container's sequence moves (new things
    /// to announce).
    public nonisolated func sequenceChanges() -> AsyncStream<Void> {
        sequenceMoved.subscribe(initial: ())
    }

    func announce() { sequenceMoved.yield(()) }

    /// Every change the index records for this container from now on, local and remote. A
    /// subscriber that falls ``itemChangeBuffer`` changes behind sees its stream end.
    public nonisolated func itemChanges() -> AsyncStream<ItemChange> { itemFeed.subscribe() }

    /// The container's syncing is going away (a sign-out, a rotation's restart): every item,
    /// failure and problem subscription ends, so that its reader (a presenter, a query, an
    /// event subscription) tells its client, which subscribes again to what replaces it.
    public nonisolated func endSubscriptions() {
        itemFeed.finishAll()
        failureFeed.finishAll()
        problemFeed.finishAll()
    }

    /// Whether anyone listens to ``itemChanges()``; what only they need is skipped otherwise.
    nonisolated var hasItemSubscribers: Bool { itemFeed.hasSubscribers }

    /// Commits `writes` to the index and tells item-change subscribers.
    func record(_ writes: [ItemWrite], origin: ItemChange.Origin, previous known: [RelativePath: Item]? = nil) throws {
        state.settled(writes.map(\.item.path))
        guard hasItemSubscribers else {
            try index.commit(id, writes)
            return
        }
        var previous: [RelativePath: Item] = [:]
        for write in writes {
            previous[write.item.path] = try known.map { $0[write.item.path] } ?? index.item(id, write.item.path)?.item
        }
        try index.commit(id, writes)
        publish(writes, previous: previous, origin: origin)
    }

    func publish(_ writes: [ItemWrite], previous: [RelativePath: Item], origin: ItemChange.Origin) {
        let changes = writes.map { write in
            ItemChange(container: id, item: write.item, previous: previous[write.item.path], origin: origin,
                       movedTo: write.item.deleted ? state.moves[write.item.path] : nil,
                       downloaded: write.downloaded || write.item.deleted || !write.item.kind.hasBytes)
        }
        for change in ItemChange.pairMoves(changes) { itemFeed.yield(change) }
    }

    // MARK: local changes

    /// Rescans the given paths (a `nil` entry means the whole container) and records what
    /// changed in one transaction, so a rename's deletion and creation reach peers together.
    /// A subtree where a client holds a write lease is left until the lease ends: its files
    /// may be half written. `folders` changed only their own attributes (the watcher's
    /// ``WatchBatch/folders``): each is looked at alone, unless its permissions changed or it
    /// had a problem (what it holds may be readable now), which rescans its subtree.
    public func localChanges(_ paths: Set<RelativePath?>, folders: Set<RelativePath> = [], bypassHold: Bool = false) async {
        var paths = paths
        let alone = paths.contains(nil) ? [] : folders.filter { !subtreeNeeded($0) }
        paths.formUnion(folders.subtracting(alone).map { Optional($0) })
        // A write through one name of a hard-linked file changes its other names too.
        let named = paths.compactMap { $0 }
        let roots: [RelativePath?] = paths.contains(nil) ? [nil] : packageRoots(Self.outermost(named + state.hardLinks.otherNames(of: named)))
        let folders = Set(alone.filter { folder in !roots.contains { root in root.map { folder.isInside($0) } ?? true } })
        do { _ = try await leasedScan(roots, folders: folders, bypassHold: bypassHold) } catch is FolderUnavailableError {
            logger.debug("scan skipped: the container is unavailable")
        } catch let error as ScanBusy {
            state.deferScans(roots + folders.map { Optional($0) })
            logger.debug("scan waits for a client's write lease", metadata: ["paths": "\(error.roots)"])
        } catch {
            logger.warning("scan failed", metadata: ["paths": "\(roots.map { $0?.rawValue ?? "/" })", "error": "\(error)"])
        }
    }

    /// Rescans the whole container now and says how much it looked at; a client's write
    /// lease anywhere in it makes this wait up to a second, then throw ``ScanBusy``.
    public func rescan() async throws -> ScanSummary {
        try await leasedScan([nil])
    }

    func leasedScan(_ roots: [RelativePath?], folders: Set<RelativePath> = [], bypassHold: Bool = false) async throws -> ScanSummary {
        // Changed rules may sync paths no scan looked at: all of the container is scanned.
        let (roots, folders) = refreshIgnoreRules() ? ([nil], []) : (roots, folders)
        // What a client's coordinated write deleted was meant: no hold.
        let coordinated = bypassHold ? [] : await leases?.recentClientWrites(in: id) ?? []
        let summary = try await leased(roots.map { readClaim($0) }, for: .agent("scan"), wait: Self.leaseWait) {
            defer { requestPull() }
            return try scan(roots, folders: folders, bypassHold: bypassHold, coordinated: coordinated)
        }
        guard let summary else { throw ScanBusy(roots: roots.map { $0?.rawValue ?? "/" }) }
        return summary
    }

    /// Runs the deferred scans that no client's lease holds up any more. A scan can wait on
    /// the agent's own write lease (a long apply of a package), whose end tells no one (see
    /// ``FileLeases/releases()``): without this, a file written there during the apply would
    /// wait for the next client's lease or a full rescan. Each pass, and so at least every
    /// retry interval, runs this.
    private func scanWhatOwnLeasesHeldUp() async {
        guard state.hasDeferredScans, let leases else { return }
        var due: Set<RelativePath?> = []
        var held: Set<RelativePath?> = []
        for root in state.takeDeferredScans() {
            if await leases.heldByClient(readClaim(root)) { held.insert(root) } else { due.insert(root) }
        }
        state.deferScans(held)
        if !due.isEmpty { await localChanges(due) }
    }

    /// A client's lease ended (``FileLeases/releases()`` tells of no other): the scans it held
    /// up run. What its coordinated write deleted was meant: no hold.
    private func leaseReleased() async {
        await leaseEnded()
        let deferred = state.takeDeferredScans()
        if !deferred.isEmpty { await localChanges(deferred, bypassHold: true) }
        requestPull()
    }

    /// A read claim on a subtree (nil: the whole container).
    nonisolated func readClaim(_ root: RelativePath?) -> FileLeases.Claim {
        FileLeases.Claim(container: id, path: root, access: .read)
    }

    func scan(under root: RelativePath?) throws {
        try scan([root])
    }

    /// The roots with a path inside a file package replaced by the package (read whole), each
    /// once and none inside another.
    nonisolated func packageRoots(_ roots: [RelativePath?]) -> [RelativePath?] {
        let packages = disk.packages
        guard !packages.extensions.isEmpty, !roots.contains(nil),
              roots.contains(where: { $0.map { packages.package(containing: $0) != nil } ?? false }) else { return roots }
        return Self.outermost(roots.compactMap { $0.map { packages.package(containing: $0) ?? $0 } }).map { Optional($0) }
    }

    /// What the index holds of the package at `path` (nil where it is not a package here).
    nonisolated func recordedPackage(_ path: RelativePath) -> PackageContent? {
        guard let indexed = try? index.item(id, path), indexed.item.kind == .package, !indexed.item.deleted else { return nil }
        return try? indexed.item.packageContent()
    }

    /// Records what changed under `roots` (each a subtree; nil: the whole container) and in
    /// the own attributes of `folders`, in one transaction where it is small; a walk that finds
    /// more than a batch of new or changed entries records them a batch at a time as it goes
    /// (``ScanBatches``), its deletions at the end. Deletions of much of the container at once
    /// are held back (`DeletionHold`) unless `bypassHold`, or inside the subtrees of
    /// `coordinated` (nil: all of it), which a client's write lease covered just now.
    @discardableResult
    func scan(_ roots: [RelativePath?], folders alone: Set<RelativePath> = [], bypassHold: Bool = false,
              coordinated: [RelativePath?] = []) throws -> ScanSummary {
        // A folder that is not this container's is never read as deletions; one just back is
        // looked at whole.
        let check = checkFolder()
        guard check != .unavailable else { throw FolderUnavailableError(reason: unavailability) }
        let roots = check == .returned ? [nil] : packageRoots(roots)
        state.scanBegins()
        defer { state.scanEnds() }
        var writes: [ItemWrite] = []
        var previousItems: [RelativePath: Item] = [:]
        var seen = 0
        // The baselines of all roots in one read; each root's walk, then its items and needs.
        var baselinesByRoot = try index.baselines(id, under: roots)
        var statOnly: [(RelativePath, FileStat)] = []
        var linked: [RelativePath: UInt64] = [:]
        let ignores = ignoreRules
        // A receive-only container's changes held back are compared with what was found.
        let receiveOnly = mode == .receiveOnly
        let heldStats = receiveOnly ? state.held.stats : [:]
        var heldUnchanged = Set<RelativePath>()
        var batches = ScanBatches()
        for (position, root) in roots.enumerated() {
            let baselines = baselinesByRoot[position]
            baselinesByRoot[position] = ItemBaselines()
            // Paths with an entry, a held stat or a problem on record: their absence means something.
            let knownProblems = state.scanProblems
            let known: @Sendable (RelativePath) -> RelativePath? = { path in
                baselines.ownKey(path) ?? (heldStats[path] != nil || knownProblems[path.rawValue] != nil ? path : nil)
            }
            var outcome = try disk.scan(under: root, ignoring: ignores, baseline: { heldStats[$0] ?? baselines[$0]?.stat },
                                        package: { [self] in recordedPackage($0) }, known: known,
                                        knownCount: baselines.count + heldStats.count, changes: { [self] batch in
                // Only a known path can have been read again.
                batches.reread.formUnion(batch.lazy.compactMap { known($0.path) })
                do { try recordBatch(batch, ignores: ignores, receiveOnly: receiveOnly, into: &batches) } catch {
                    batches.failure = error
                    return false
                }
                return true
            })
            if let failure = batches.failure { throw failure }
            // What the index holds inside a folder that could not be read is still there.
            if !outcome.unread.isEmpty {
                outcome.seen.formUnion(outcome.unread.flatMap { baselines.paths(atOrInside: $0) })
            }
            seen += outcome.entries
            // Paths seen with the stat recorded (or held), so not read again.
            let reread = batches.reread.union(outcome.changed.lazy.map(\.path))
            batches.reread = []
            let unread = { (path: RelativePath) in outcome.seen.contains(path) && !reread.contains(path) }
            if !heldStats.isEmpty { heldUnchanged.formUnion(heldStats.keys.filter(unread)) }
            linked.merge(outcome.linked) { _, new in new }
            // What reading an unread path found (attributes past the limit, a file it could
            // not open) is still so. Ignored paths are found again by every scan.
            reportProblems(outcome.problems, under: root) { problem in
                guard problem.ignoredBy == nil, let path = try? RelativePath(problem.path) else { return false }
                return unread(path)
            }
            if root == nil {
                logger.info("scanned container", metadata: ["entries": "\(outcome.entries)", "hashed": "\(outcome.filesHashed)"])
            }
            // Whole items only where something changed: what the scan found changed, and what
            // it did not find (a file of an on-demand container that is not downloaded is not
            // on disk, and that is no deletion).
            var gone: [RelativePath] = []
            for (path, baseline) in baselines where !baseline.deleted && baseline.downloaded && !outcome.seen.contains(path) {
                gone.append(path)
            }
            let planned = try plan(outcome, gone: gone, ignores: ignores)
            previousItems.merge(planned.previous) { _, new in new }
            statOnly += planned.plan.statOnly
            writes += planned.plan.writes
        }
        let folders = try changedFolders(Set(roots.compactMap { $0?.parent }).union(alone), previous: &previousItems)
        statOnly += folders.statOnly
        writes += folders.writes
        if !bypassHold { writes = holdingBackMassDeletions(writes, previous: previousItems, roots: roots, coordinated: coordinated) }
        if receiveOnly {
            let split = Self.holdBack(writes, previous: previousItems)
            writes = split.kept
            statOnly += split.statOnly
            state.heldChangesScanned(roots, changes: split.held.merging(batches.held) { new, _ in new }, unchanged: heldUnchanged)
        }
        // The folder may have gone while it was read (an unmount): nothing of what was seen counts.
        try requireFolder()
        announceHoldChanges()
        try index.updateStats(id, statOnly)
        try recordLinks(roots, found: linked)
        try recordLocal(writes, previous: previousItems)
        return ScanSummary(seen: seen, changed: batches.changed + writes.count)
    }

    /// What a scan found at the paths of `outcome.changed` and did not find at `gone`, as
    /// index writes against the items and needs there, with the items it replaces.
    private func plan(_ outcome: ScanOutcome, gone: [RelativePath], ignores: IgnoreRules) throws
        -> (plan: LocalChanges.Plan, previous: [RelativePath: Item]) {
        let changed = outcome.changed.map(\.path)
        let existing = try index.items(id, at: changed + gone)
        let needs = try index.needs(id, at: changed)
        // An ignored path keeps its entry: it is deleted nowhere.
        let present = existing.filter { path, indexed in
            (indexed.downloaded || outcome.seen.contains(path)) && ignores.ignoring(path, isDirectory: indexed.item.kind == .directory) == nil
        }
        let plan = LocalChanges.plan(outcome, existing: present, needs: needs, device: device,
                                     now: clock.wallNanoseconds, applying: { [state] in state.isApplying(inside: $0) })
        for path in plan.refused {
            logger.warning("symlink points out of the container: not synced", metadata: ["path": "\(path)"])
        }
        return (plan, existing.mapValues(\.item))
    }

    /// Records a batch of new or changed entries a walk found before it ends. A batch holds
    /// no deletion (what was not found is known only at the end), so no hold judges it; a
    /// receive-only container's changes in it are held back as at the end.
    private func recordBatch(_ entries: [LocalEntry], ignores: IgnoreRules, receiveOnly: Bool, into batches: inout ScanBatches) throws {
        let planned = try plan(ScanOutcome(changed: entries, seen: Set(entries.map(\.path))), gone: [], ignores: ignores)
        var writes = planned.plan.writes
        var statOnly = planned.plan.statOnly
        if receiveOnly {
            let split = Self.holdBack(writes, previous: planned.previous)
            writes = split.kept
            statOnly += split.statOnly
            batches.held.merge(split.held) { _, new in new }
        }
        try requireFolder()
        try index.updateStats(id, statOnly)
        try recordLocal(writes, previous: planned.previous)
        batches.changed += writes.count
    }

    /// Records what a scan found changed here and tells the peers.
    private func recordLocal(_ writes: [ItemWrite], previous: [RelativePath: Item]) throws {
        guard !writes.isEmpty else { return }
        try record(writes, origin: .local, previous: previous)
        for write in writes {
            logger.debug("local change", metadata: ["path": "\(write.item.path)", "version": "\(write.item.version)",
                                                    "deleted": "\(write.item.deleted)"])
        }
        announce()
    }

    /// Keeps what a scan saw of files with several names, with their other names the index
    /// knows where the scan did not see them.
    private func recordLinks(_ roots: [RelativePath?], found: [RelativePath: UInt64]) throws {
        guard !found.isEmpty || !state.hardLinks.isEmpty else { return }
        let unknown = state.linksScanned(roots, found: found)
        guard !unknown.isEmpty else { return }
        var names: [RelativePath: UInt64] = [:]
        for (inode, paths) in try index.paths(id, withInodes: unknown) {
            for path in paths { names[path] = inode }
        }
        state.linksFound(names)
    }

    /// The paths not inside another of them, each once. Linear in the paths and their
    /// depth: a burst of watcher events can name thousands of sibling files.
    static func outermost(_ paths: [RelativePath]) -> [RelativePath] {
        // Bytes, not strings: names that differ only in Unicode normalization are two paths.
        var kept = Set<[UInt8]>()
        var result: [RelativePath] = []
        // A folder sorts before everything inside it.
        for path in paths.sorted() {
            let raw = Array(path.rawValue.utf8)
            guard !kept.contains(raw) else { continue }
            let inside = raw.indices.contains { raw[$0] == UInt8(ascii: "/") && kept.contains(Array(raw[..<$0])) }
            if !inside {
                kept.insert(raw)
                result.append(path)
            }
        }
        return result
    }

    // MARK: remote changes

    /// Takes in items a peer announced: decides for each what this device needs, and stores
    /// those decisions with the peer's sequence in one transaction.
    /// `absent` are the items the peer lists without holding their content.
    public func receive(_ items: [Item], absent: Set<RelativePath> = [], from peer: DeviceID, state: PeerIndexState) throws {
        var needs: [Item] = []
        var merges: [ItemWrite] = []
        let packages = disk.packages
        let items = items.filter { remote in
            guard let package = packages.package(containing: remote.path) else { return true }
            // A package's inside travels in its entry, never as items of its own.
            logger.warning("refused a peer's entry inside a file package", metadata: [
                "path": "\(remote.path)", "package": "\(package)", "peer": "\(peer)"])
            return false
        }
        try recordHeldDeletions(changedBy: items)
        let locals = try index.items(id, at: items.map(\.path))
        let pendings = try index.needs(id, at: items.map(\.path))
        for remote in items {
            let local = locals[remote.path]
            var pending = pendings[remote.path]
            if let planned = pending, planned.version == remote.version, !planned.hasSameContent(as: remote) {
                // The same version with other content: this device merged the same changes in
                // another order than the peer (two copies of the same bytes count as one
                // change there), and planned a content the peer does not hold. The peer's item
                // is in place there; it is judged against what is in place here.
                logger.info("a peer holds other content at the version this device planned", metadata: [
                    "path": "\(remote.path)", "peer": "\(peer)", "version": "\(remote.version)"])
                pending = nil
            }
            let base = pending ?? local?.item
            switch Reconciliation.reconcile(local: base, remote: remote) {
            case .keepLocal:
                continue
            case .applyRemote(let item):
                needs.append(item)
            case .merge(let merged, let contentFromRemote):
                if contentFromRemote || pending != nil {
                    needs.append(merged)
                } else {
                    merges.append(ItemWrite(item: merged, stat: local?.stat))
                    // The puller keeps new conflict versions and removes the kept copies of
                    // versions the peer has seen superseded.
                    if !merged.conflicts.isEmpty || local?.item.conflicts.isEmpty == false { needs.append(merged) }
                }
                logger.log(level: remote.kind == .directory ? .debug : .info, "concurrent change", metadata: ["path": "\(remote.path)", "peer": "\(peer)",
                                                            "version": "\(merged.version)"])
            }
        }
        var previous: [RelativePath: Item] = [:]
        if hasItemSubscribers {
            for merge in merges { previous[merge.item.path] = locals[merge.item.path]?.item }
        }
        let held = items.map { ($0.path, $0.deleted || absent.contains($0.path) ? nil : $0.version) }
        try index.recordRemoteUpdate(id, peer: peer, state: state, needs: needs, merges: merges, held: held)
        if !merges.isEmpty {
            publish(merges, previous: previous, origin: .remote)
            announce()
        }
        // A peer that now holds what failed (no one had its chunks) has it tried again at once.
        let retryNow = self.state.peersHold(held.filter { $0.1 != nil }.map(\.0), at: clock.now)
        if !needs.isEmpty || retryNow { requestPull() }
    }

    // MARK: serving

    /// Reads a run of chunks for a peer under a read lease on the file, so a client's write
    /// in progress is never served. While a write lease is held there (a client's, or this
    /// device's own while it applies a change nearby), the first chunk comes from any other
    /// place here that holds it (a kept version, another file), or nil (the peer asks
    /// elsewhere or again later).
    public nonisolated func serveChunks(path: String, run: [ChunkRef]) async -> Data? {
        guard !servingRefused.load(ordering: .relaxed), isAvailable else { return nil }
        guard let relative = try? RelativePath(path) else { return nil }
        // A version this device assembles too, from its staged file: no lease, it is ours.
        if let staged = assemblies.read(path: relative, run: run) { return staged }
        guard let leases else { return readChunks(path: path, run: run) }
        if let served = await leases.with([readClaim(relative)], for: .agent("serve"), wait: nil, { readChunks(path: path, run: run) }) {
            return served
        }
        return run.first.flatMap { readLocal(hash: $0.hash, size: $0.size, avoiding: relative) }
    }

    /// Reads a run of chunks for a peer from where it says, with one read, and returns the
    /// longest prefix whose chunks match their hashes (all of it when the file is unchanged
    /// since it was indexed); when not even the first does, the first chunk from anywhere
    /// this device holds it. Nil when it has not got it.
    public nonisolated func readChunks(path: String, run: [ChunkRef]) -> Data? {
        guard let first = run.first else { return nil }
        if let path = try? RelativePath(path) {
            let total = run.reduce(UInt64(0)) { $0 + UInt64($1.size) }
            let bytes = (total <= UInt64(UInt32.max) ? try? disk.read(.item(path), offset: first.offset, size: UInt32(total)) : nil)
                ?? (try? disk.read(.item(path), offset: first.offset, size: first.size))
            if let bytes {
                // Unchanged since it was hashed (the scanner's own test): no need to hash again;
                // the requester checks every chunk anyway.
                if bytes.count == Int(total), let stat = disk.stat(path), (try? index.holds(id, path: path, run: run, stat: stat)) == true {
                    return bytes
                }
                var end = 0
                for chunk in run {
                    let next = end + Int(chunk.size)
                    guard next <= bytes.count, ChunkHasher.hash(bytes[end..<next]) == chunk.hash else { break }
                    end = next
                }
                if end == bytes.count { return bytes }
                if end > 0 { return bytes.prefix(end) }
            }
        }
        return readLocal(hash: first.hash, size: first.size)
    }

    /// The chunk from any place here that holds it, verified; not from the file at `avoiding`.
    nonisolated func readLocal(hash: ChunkHash, size: UInt32, avoiding: RelativePath? = nil) -> Data? {
        guard let locations = try? index.locations(of: hash) else { return nil }
        for location in locations where location.container == id && location.size == size {
            if let avoiding, location.file == .item(avoiding) { continue }
            if let bytes = try? disk.read(location.file, offset: location.offset, size: location.size),
               ChunkHasher.hash(bytes) == hash {
                return bytes
            }
        }
        return nil
    }
}
