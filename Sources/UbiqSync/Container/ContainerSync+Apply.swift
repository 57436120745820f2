import Foundation
import Logging
import UbiqChunking
import UbiqIndex
import UbiqModel

/// The puller: applies the remote versions this device needs, each verified chunk by chunk
/// and renamed into place only when complete.
extension ContainerSync {
    /// One pull pass: applies every need that no other pass has taken on. Returns what it
    /// took (nil: nothing).
    func pullNeeds() async -> PullPlan? {
        // A peer's change to an ignored path waits until the path is synced again.
        let ignores = ignoreRules
        guard let allNeeds = (try? index.needs(id))?.filter({ ignores.ignoring($0.path, isDirectory: $0.kind == .directory) == nil }) else {
            return nil
        }
        let plan: PullPlan
        switch state.passBegins(needs: allNeeds, at: clock.now) {
        case .nothingNeeded(let sweep):
            if sweep { sweepVersions() }
            if state.takePartialFilesToRemove() { disk.removeAbandonedPartials() }
            return nil
        case .nothingFree:
            return nil
        case .apply(let taken):
            plan = taken
        }
        // Renames only matter to whoever hears of changes; pairing them reads the index twice a need.
        let moves = hasItemSubscribers ? (try? renames(in: plan.steps.flatMap { $0 })) ?? [:] : [:]
        state.movesBegin(moves)
        defer { state.movesEnded(moves.keys) }
        // Content asked for, as this pass found it: on-demand files, and what a folder reset
        // or a restore of held deletions found missing (looked up only while there may be some).
        let asked = onDemand || state.fetchRequestsMayWait ? (try? index.fetchRequests(id)) ?? [] : []
        if asked.isEmpty { state.fetchRequestsMayWait = false }
        var groups: [[Item]] = []
        for step in plan.steps {
            if Task.isCancelled { return plan }
            if step.count == 1 {
                await applyGroups(groups, asked: asked)
                groups = []
                await applyLogged(step[0], asked: asked)
                released(step.map(\.path))
            } else {
                groups.append(step)
            }
        }
        await applyGroups(groups, asked: asked)
        return plan
    }

    /// Small files and new folders do not depend on each other (a file's missing folders are
    /// created with it): each group is fetched side by side and made durable together, and
    /// two groups are under way at a time, so one fetches while the other is flushed.
    private func applyGroups(_ groups: [[Item]], asked: Set<RelativePath>) async {
        await withTaskGroup(of: Void.self) { tasks in
            var next = groups.makeIterator()
            for _ in 0..<2 {
                guard let group = next.next() else { break }
                tasks.addTask { await self.applyBatchReleasing(group, asked: asked) }
            }
            while await tasks.next() != nil {
                if Task.isCancelled { break }
                if let group = next.next() { tasks.addTask { await self.applyBatchReleasing(group, asked: asked) } }
            }
        }
    }

    private func applyBatchReleasing(_ group: [Item], asked: Set<RelativePath>) async {
        await applyBatch(group, asked: asked)
        released(group.map(\.path))
    }

    /// Gives back paths a pass took on, and the synced mtimes of the folders they lie in.
    private func released(_ paths: [RelativePath]) {
        state.released(paths)
        restoreFolderTimes(above: paths)
    }

    /// Applies one need and logs a failure (the need stays and is retried); `leased` when
    /// the caller already holds the write lease on its path. `asked` are the on-demand files
    /// whose content was asked for.
    func applyLogged(_ target: Item, leased: Bool = false, asked: Set<RelativePath>) async {
        do {
            if leased { try await applyLeased(target, asked: asked) } else { try await apply(target, asked: asked) }
        } catch {
            failed(target, error, "could not apply change")
        }
    }

    /// Needs that together rename a file: the removal of a path whose content is exactly what
    /// a new path is to hold.
    private func renames(in needs: [Item]) throws -> [RelativePath: RelativePath] {
        var created: [[ChunkRef]: [RelativePath]] = [:]
        for need in needs where !need.deleted && need.kind == .file && !need.chunks.isEmpty {
            if let local = try index.item(id, need.path)?.item, !local.deleted { continue }
            created[need.chunks, default: []].append(need.path)
        }
        var moves: [RelativePath: RelativePath] = [:]
        for need in needs where need.deleted {
            guard let local = try index.item(id, need.path)?.item, !local.deleted, local.kind == .file,
                  var targets = created[local.chunks], !targets.isEmpty else { continue }
            moves[need.path] = targets.removeFirst()
            created[local.chunks] = targets
        }
        return moves
    }

    /// How long the agent queues for a lease before it leaves the item for later. Queueing
    /// (rather than only trying) keeps a stream of readers from starving its writes.
    static let leaseWait = Duration.seconds(1)

    /// Applies one need under a write lease on its path, so no coordinated reader sees the
    /// file change under it. While a client holds a lease there the need waits; it is
    /// retried when a lease is released.
    func apply(_ target: Item, asked: Set<RelativePath>) async throws {
        let claim = FileLeases.Claim(container: id, path: target.path, access: .write)
        let applied: Void? = try await leased([claim], for: .agent("apply"), wait: Self.leaseWait) {
            try await applyLeased(target, asked: asked)
        }
        if applied == nil { logger.debug("change waits for a client's lease", metadata: ["path": "\(target.path)"]) }
    }

    /// Records what changed on disk at the targets before they are applied. A folder that
    /// stays one is looked at alone: its new version is its own metadata (a folder of record
    /// logs gets one with every log), and what it holds does not bear on it.
    func scanBeforeApplying(_ targets: [Item]) throws {
        var roots: [RelativePath?] = []
        var folders: Set<RelativePath> = []
        for target in targets {
            if target.kind == .directory, !target.deleted, !subtreeNeeded(target.path) {
                folders.insert(target.path)
            } else {
                roots.append(target.path)
            }
        }
        try scan(roots, folders: folders)
    }

    func applyLeased(_ target: Item, asked: Set<RelativePath>) async throws {
        try scanBeforeApplying([target])
        let local = try index.item(id, target.path)
        if let local, !local.downloaded, !local.item.deleted, local.item.version == target.version, asked.contains(target.path) {
            // Content asked for of what the index already describes.
            try await materialize(local.item, local: local, asked: asked)
            return
        }
        let goal: Item
        switch Reconciliation.reconcile(local: local?.item, remote: target) {
        case .keepLocal:
            if let local {
                if local.item.version == target.version { try await ensureVersions(of: local.item) }
                // Ours may have moved on since the need was recorded; what it no longer lists goes.
                try pruneVersions(of: local.item)
            }
            try index.removeNeed(id, target.path, upTo: target.version)
            return
        case .applyRemote(let item):
            goal = item
        case .merge(let merged, let contentFromRemote):
            goal = merged
            if !contentFromRemote {
                try await ensureVersions(of: merged)
                try record([ItemWrite(item: merged, stat: local?.stat, settlesNeed: true)], origin: .remote)
                try pruneVersions(of: merged, previous: local?.item.conflicts ?? [])
                announce()
                return
            }
        }
        if let other = try caseTwin(of: goal, local: local) {
            if state.caseConflict(goal.path, twin: other) {
                logger.warning("case conflict: not written", metadata: ["path": "\(goal.path)", "existing": "\(other)"])
            }
            return
        }
        try await ensureVersions(of: goal)
        try await materialize(goal, local: local, asked: asked)
        try pruneVersions(of: goal, previous: local?.item.conflicts ?? [])
        announce()
    }

    /// Whether the file on disk already holds `goal`'s bytes, so that only its permissions
    /// and mtime are to change (set in place, no copy of the bytes).
    static func sameBytes(_ local: IndexedItem, _ goal: Item) -> Bool {
        local.item.kind == .file && !local.item.deleted && local.downloaded && goal.kind == .file
            && local.item.size == goal.size && local.item.chunks.map(\.hash) == goal.chunks.map(\.hash)
    }

    private func caseTwin(of goal: Item, local: IndexedItem?) throws -> RelativePath? {
        guard local == nil || local?.item.deleted == true, !goal.deleted else { return nil }
        return try index.caseTwin(id, of: goal.path)
    }

    func materialize(_ goal: Item, local: IndexedItem?, asked: Set<RelativePath>) async throws {
        let path = goal.path
        // A receive-only container's change held back here is what gets replaced (and kept).
        var onDisk = if let held = state.held[path] { held.onDisk } else { local.flatMap { $0.item.deleted ? nil : $0 } }
        // A package's recorded stat is its fingerprint, checked when it is replaced.
        if let onDisk, disk.stat(path) != onDisk.stat, onDisk.item.kind != .directory, onDisk.item.kind != .package {
            throw DiskError(.io, "'\(path)' changed on disk while applying; it will be rescanned")
        }
        if let package = onDisk, package.item.kind == .package, goal.kind != .package || goal.deleted {
            // Whatever replaces a package (its deletion too) takes it away whole.
            try removePackage(package, keeping: goal.deleted ? .deleted : .replaced, by: goal.modifiedBy)
            onDisk = nil
        }
        if goal.deleted {
            if let onDisk {
                do {
                    if try !removeKeeping(onDisk, reason: .deleted, by: goal.modifiedBy) { try disk.remove(path) }
                } catch let error as DiskError where error.code == .notEmpty {
                    try keepFolder(goal, local: onDisk)
                    return
                } catch let error as DiskError where error.code == .notFound {}
            }
            try record([ItemWrite(item: goal, stat: nil, settlesNeed: true)], origin: .remote)
            return
        }
        if onDemand, goal.kind.hasBytes, onDisk?.downloaded != true || onDisk?.item.kind != goal.kind,
           !asked.contains(path) {
            // Metadata only: the content comes when asked for.
            if let onDisk, onDisk.downloaded, try !removeKeeping(onDisk, reason: .replaced, by: goal.modifiedBy) { try disk.remove(path) }
            try record([ItemWrite(item: goal, stat: nil, settlesNeed: true, downloaded: false)], origin: .remote)
            return
        }
        let stat: FileStat
        switch goal.kind {
        case .directory:
            if let onDisk, onDisk.item.kind != .directory, try !removeKeeping(onDisk, reason: .replaced, by: goal.modifiedBy) {
                try disk.remove(path)
            }
            stat = try disk.makeDirectory(path, permissions: goal.permissions, attributes: goal.attributes, mtime: goal.mtime)
        case .package:
            try await materializePackage(goal, onDisk: onDisk)
            return
        case .symlink:
            if let onDisk, onDisk.item.kind == .directory { try disk.remove(path) }
            if let onDisk, onDisk.item.kind == .file { _ = try removeKeeping(onDisk, reason: .replaced, by: goal.modifiedBy) }
            stat = try disk.makeSymlink(path, target: goal.symlinkTarget ?? "", mtime: goal.mtime)
        case .file:
            if let onDisk, let seen = onDisk.stat, Self.sameBytes(onDisk, goal) {
                do {
                    stat = try disk.setMetadata(of: path, metadata: FileMetadata(of: goal), expected: seen)
                } catch let error as DiskError where error.code == .alreadyExists {
                    throw DiskError(.io, "'\(path)' changed on disk while applying; it will be rescanned")
                }
                break
            }
            let staged = try await assemble(goal.chunks, path: path, version: goal.version)
            // Looked at again after the fetch, with no suspension before the rename: a client
            // may have written the path meanwhile, and its write must not be replaced unseen.
            if let onDisk, onDisk.item.kind != .directory, disk.stat(path) != onDisk.stat {
                staged.discard()
                throw DiskError(.io, "'\(path)' changed on disk while its new version was fetched; it will be rescanned")
            }
            if let onDisk, onDisk.item.kind == .directory {
                do { try disk.remove(path) } catch { staged.discard(); throw error }
            }
            let kept = try plannedHistory(of: onDisk, reason: .replaced, by: goal.modifiedBy).map { try reserveHistory([$0]) } ?? []
            do {
                stat = onDisk == nil
                    ? try disk.commitNew(staged, to: path, metadata: FileMetadata(of: goal))
                    : try disk.commit(staged, to: path, metadata: FileMetadata(of: goal), keepReplacedAs: kept.first?.name)
            } catch let error as DiskError where error.code == .alreadyExists {
                dropHistory(kept)
                throw DiskError(.io, "'\(path)' was created on disk while its new version was fetched; it will be rescanned")
            } catch {
                dropHistory(kept)
                staged.discard()
                throw error
            }
        }
        try record([ItemWrite(item: goal, stat: stat, settlesNeed: true)], origin: .remote)
        logger.debug("applied", metadata: ["path": "\(path)", "version": "\(goal.version)"])
        reviveFolders(above: [path])
    }

    /// A peer's item landed in a folder this device holds as deleted (deleted here, or on a
    /// peer, while the item was created elsewhere): putting it in place made the folder again,
    /// so the folder is rescanned and recorded as a new version here. Modification beats
    /// deletion, as for a folder deleted on a peer that still has content here.
    func reviveFolders(above paths: [RelativePath]) {
        let folders = Self.folders(above: paths)
        guard !folders.isEmpty, let items = try? index.items(id, at: Array(folders)) else { return }
        let deleted = items.values.filter { $0.item.deleted && disk.stat($0.item.path) != nil }.map(\.item.path)
        guard !deleted.isEmpty else { return }
        do { try scan(Self.outermost(deleted).map { Optional($0) }) } catch {
            logger.warning("could not record a folder made again for a peer's change", metadata: ["paths": "\(deleted)", "error": "\(error)"])
        }
    }

    /// A folder deleted on a peer but holding local content here: modification beats deletion.
    private func keepFolder(_ goal: Item, local: IndexedItem) throws {
        let kept = local.item.changedContent(by: device, after: goal.version.merged(with: local.item.version))
        try record([ItemWrite(item: kept, stat: local.stat, settlesNeed: true)], origin: .local)
        logger.info("kept folder deleted on a peer: it still has content here", metadata: ["path": "\(goal.path)"])
    }

    /// Builds a file from its chunks in `.ubiq/tmp/`: local copies first, then peers, each
    /// chunk once (``ChunkReuse``: repeated chunks of zeros stay holes, other repeats are
    /// copied from their first place). `facts` are what the index knows about it, when
    /// already read for a group of files.
    /// `leavingOut`: chunks another file of a group brings, written later (``SharedChunks``).
    func assemble(_ chunks: [ChunkRef], path: RelativePath, version: VersionVector? = nil,
                  facts: AssemblyFacts? = nil, leavingOut: [ChunkHash: SharedChunks.Source] = [:]) async throws -> any StagedFile {
        let facts = facts ?? assemblyFacts(for: [AssemblyFacts.File(path: path, chunks: chunks, version: version)])
        let total = chunks.reduce(0) { $0 + UInt64($1.size) }
        let key = ContentKey.of(chunks)
        let (staged, resumed) = total >= Self.resumableSize ? try disk.stageResumable(key: key) : (try disk.stage(), false)
        let wanted = SwarmVersion(container: id, path: path, contentKey: key, size: total)
        // Large files are told to peers as they grow, so those fetching them too can trade.
        let swarm = total >= Self.swarmSize ? fetcher : nil
        if swarm != nil { assemblies.begin(wanted, staged: staged) }
        transfers.begin(path, total: total)
        defer { transfers.end(path) }
        do {
            var reuse = ChunkReuse(chunks.filter { leavingOut[$0.hash] == nil })
            let distinct = reuse.distinct
            transfers.add(chunks.reduce(0) { leavingOut[$1.hash] == nil ? $0 : $0 + UInt64($1.size) }, to: path)
            if resumed { reuse.distinct = stillMissing(reuse.distinct, in: staged, path: path) }
            if reuse.holeBytes > 0 {
                try staged.setSize(total)
                transfers.add(reuse.holeBytes, to: path)
            }
            let missing = try copyLocal(reuse.distinct, into: staged, path: path, facts: facts)
            if let swarm {
                let fetched = Set(missing.map(\.offset))
                let held = RangeSet(Self.spans(of: distinct.filter { !fetched.contains($0.offset) }))
                assemblies.hold(held, of: wanted)
                if !held.isEmpty { swarm.announce(SwarmProgress(version: wanted, held: held)) }
            }
            if reuse.holeBytes == 0, total >= Self.reserveSize {
                // What is still to be written: fetched, or copied from its first place here.
                try staged.reserve(Self.spans(of: (missing + reuse.repeats.map(\.chunk)).sorted { $0.offset < $1.offset }))
            }
            try await fetchAll(missing, of: wanted, holders: facts.holders[path] ?? [], holding: version, announcing: swarm != nil,
                               into: staged)
            for (from, chunk) in reuse.repeats {
                try staged.write(try staged.read(chunk.size, at: from), at: chunk.offset)
                transfers.add(UInt64(chunk.size), to: path)
            }
            if swarm != nil { assemblies.end(wanted, whole: true) }
            return staged
        } catch {
            if let swarm {
                assemblies.end(wanted, whole: false)
                swarm.announce(SwarmProgress(version: wanted, held: RangeSet(), ended: true))
            }
            staged.abandon()
            if total >= Self.resumableSize { state.partialFileAbandoned() }
            throw error
        }
    }

    /// The chunks a partly fetched file kept from an earlier attempt does not hold yet: each
    /// is read back and hashed (a power cut may have left zeros, or the attempt may have
    /// stopped in the middle of it).
    private func stillMissing(_ chunks: [ChunkRef], in staged: any StagedFile, path: RelativePath) -> [ChunkRef] {
        var missing: [ChunkRef] = []
        var kept: UInt64 = 0
        for chunk in chunks {
            if let bytes = try? staged.read(chunk.size, at: chunk.offset), ChunkHasher.hash(bytes) == chunk.hash {
                kept += UInt64(chunk.size)
            } else {
                missing.append(chunk)
            }
        }
        transfers.add(kept, to: path)
        logger.info("resuming a partly fetched file", metadata: ["path": "\(path)", "kept": "\(kept)", "chunks": "\(missing.count)"])
        return missing
    }

    /// Files at least this large get their space set aside before they are assembled.
    static let reserveSize: UInt64 = 1 << 20
    /// Files at least this large are assembled in a file kept when the attempt stops (a peer
    /// gone, the agent killed), so that the next one fetches only what it lacks.
    static let resumableSize: UInt64 = 16 << 20

    // MARK: conflict versions

    /// Makes sure every unresolved conflict version of the item is kept in `.ubiq/versions/`.
    /// A version this device holds as its current file is copied (in the kernel, checked
    /// against the index before and after), never hard-linked: until the winner replaces it,
    /// the file stays open to clients' in-place writes and its bytes need not be durable, and
    /// a link would let either change the kept version under its ID (the simulator found both).
    func ensureVersions(of item: Item) async throws {
        guard !item.conflicts.isEmpty else { return }
        let stored = try disk.storedVersionIDs(of: item.path)
        for version in item.conflicts where version.kind.hasBytes && !stored.contains(version.id) {
            if version.kind == .package {
                try await keepPackageVersion(version, of: item.path)
                logger.info("kept conflict version of a package", metadata: ["path": "\(item.path)", "versionID": "\(version.id)"])
                continue
            }
            let staged = try await assemble(version.chunks, path: item.path)
            do {
                try disk.commitVersion(staged, of: item.path, id: version.id, metadata: FileMetadata(of: version))
            } catch {
                staged.discard()
                throw error
            }
            try index.setVersionFile(id, name: try disk.versionName(of: item.path, id: version.id), chunks: version.chunks)
            logger.info("kept conflict version", metadata: ["path": "\(item.path)", "versionID": "\(version.id)"])
        }
    }

    /// Removes kept version copies that no item lists any more (a catch-all for the paths
    /// that drop conflict versions without passing ``pruneVersions(of:)``). Copies made in
    /// the last minute are left: one may be on its way to being listed.
    func sweepVersions() {
        guard let stored = try? disk.storedVersionNames(), !stored.isEmpty,
              let items = try? index.conflictedItems(id) else { return }
        var listed = Set<String>()
        for item in items {
            for version in item.conflicts {
                if let name = try? disk.versionName(of: item.path, id: version.id) { listed.insert(name) }
            }
        }
        let settledBefore = clock.wallNanoseconds - 60_000_000_000
        for (name, changed) in stored where !listed.contains(name) && changed < settledBefore {
            do {
                try disk.removeVersion(named: name)
                try index.setVersionFile(id, name: name, chunks: nil)
                logger.info("removed a kept version no item lists", metadata: ["name": "\(name)"])
            } catch {
                logger.warning("could not remove a kept version no item lists", metadata: ["name": "\(name)", "error": "\(error)"])
            }
        }
    }

    /// Keeps again the conflict versions items list whose copy is missing: the other catch-all,
    /// for a version recorded but never kept (a path reused after its deletion, a crash in
    /// between). Each comes from local copies of its chunks or from peers.
    func restoreMissingVersions() async {
        guard let items = try? index.conflictedItems(id) else { return }
        for item in items {
            guard let stored = try? disk.storedVersionIDs(of: item.path),
                  item.conflicts.contains(where: { $0.kind.hasBytes && !stored.contains($0.id) }) else { continue }
            do { try await ensureVersions(of: item) } catch {
                logger.debug("a listed conflict version is missing here and could not be fetched yet",
                            metadata: ["path": "\(item.path)", "error": "\(error)"])
            }
        }
    }

    /// Removes kept versions of the item that are no longer unresolved.
    /// `previous`: the conflict versions the item listed before; those a resolution drops go
    /// to the history (but one whose content is now current).
    func pruneVersions(of item: Item, previous: [ConflictVersion] = []) throws {
        let keep = Set(item.conflicts.map(\.id))
        let known = Dictionary(previous.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for versionID in try disk.storedVersionIDs(of: item.path) where !keep.contains(versionID) {
            let name = try disk.versionName(of: item.path, id: versionID)
            let kept = try known[versionID].map { try keepDropped($0, of: item, storedAs: name) } ?? false
            if !kept { try disk.removeVersion(of: item.path, id: versionID) }
            try index.setVersionFile(id, name: name, chunks: nil)
        }
    }
}
