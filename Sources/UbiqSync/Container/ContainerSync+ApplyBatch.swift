import Foundation
import UbiqChunking
import UbiqIndex
import UbiqModel

/// New folders and small files applied as a group: one lease, one rescan of their paths,
/// chunks fetched side by side, one flush of the file system and one index transaction for
/// all of them. Anything that needs more care (a conflict to keep, a local edit, a case twin,
/// on-demand content) goes through the one-at-a-time path inside the same lease.
extension ContainerSync {
    /// How many small files are assembled at the same time within a group.
    static let assembleWidth = 32

    func applyBatch(_ targets: [Item], asked: Set<RelativePath>) async {
        let claims = targets.map { FileLeases.Claim(container: id, path: $0.path, access: .write) }
        let applied: Void? = await leased(claims, for: .agent("apply"), wait: Self.leaseWait) {
            await applyBatchLeased(targets, asked: asked)
        }
        if applied == nil {
            // A client holds a lease on one of them: one at a time, each waiting for its own.
            for target in targets { await applyLogged(target, asked: asked) }
        }
    }

    private func applyBatchLeased(_ targets: [Item], asked: Set<RelativePath>) async {
        let locals: [RelativePath: IndexedItem]
        do {
            try scanBeforeApplying(targets)
            locals = try index.items(id, at: targets.map(\.path))
        } catch {
            logger.warning("could not apply a group of changes; will retry", metadata: ["count": "\(targets.count)", "error": "\(error)"])
            for target in targets { failed(target, error, nil) }
            return
        }
        // Paths new here must not differ only in case from another item: one read for all.
        let twins = try? index.caseTwins(id, of: targets.filter { locals[$0.path]?.item.deleted ?? true }.map(\.path))
        var folders: [Item] = []
        var files: [(goal: Item, local: IndexedItem?)] = []
        for target in targets {
            let local = locals[target.path]
            guard let goal = plainGoal(target, local: local, twins: twins) else {
                await applyLogged(target, leased: true, asked: asked)
                continue
            }
            if goal.kind == .directory { folders.append(goal) } else { files.append((goal, local)) }
        }
        // The one-at-a-time applies above awaited: the disk may have gone meanwhile, and a folder
        // made now would be made where it was (an empty mount point).
        do { try requireFolder() } catch {
            for target in folders + files.map(\.goal) { failed(target, error, nil) }
            return
        }
        var writes: [ItemWrite] = []
        for folder in folders {
            do {
                let stat = try disk.makeDirectory(folder.path, permissions: folder.permissions, attributes: folder.attributes, mtime: folder.mtime)
                writes.append(ItemWrite(item: folder, stat: stat, settlesNeed: true))
            } catch {
                failed(folder, error, "could not create folder")
            }
        }
        writes += await commitFiles(files)
        guard !writes.isEmpty else { return }
        do { try record(writes, origin: .remote, previous: locals.mapValues(\.item)) } catch {
            logger.warning("could not record applied changes; they will be rescanned", metadata: ["count": "\(writes.count)", "error": "\(error)"])
        }
        reviveFolders(above: writes.map(\.item.path))
        announce()
    }

    /// Assembles the files side by side, then commits those still safe to replace together;
    /// a file whose bytes are already in place only gets its new permissions and mtime.
    private func commitFiles(_ all: [(goal: Item, local: IndexedItem?)]) async -> [ItemWrite] {
        var writes: [ItemWrite] = []
        var files: [(goal: Item, local: IndexedItem?)] = []
        for (goal, local) in all {
            guard let local, let seen = local.stat, Self.sameBytes(local, goal) else {
                files.append((goal, local))
                continue
            }
            do {
                let stat = try disk.setMetadata(of: goal.path, metadata: FileMetadata(of: goal), expected: seen)
                writes.append(ItemWrite(item: goal, stat: stat, settlesNeed: true))
            } catch {
                failed(goal, error, "could not set permissions and mtime")
            }
        }
        var staged: [RelativePath: any StagedFile] = [:]
        var fetchFailures: [RelativePath: any Error] = [:]
        let facts = assemblyFacts(for: files.map { AssemblyFacts.File(path: $0.goal.path, chunks: $0.goal.chunks, version: $0.goal.version) },
                                  previous: files.reduce(into: [:]) { previous, file in previous[file.goal.path] = file.local })
        // A chunk that files of the group share (all of them, for copies of one file) is
        // fetched or copied for the first of them only; the others take it from that file
        // once all are assembled.
        let sharing = SharedChunks(files.map(\.goal))
        await withTaskGroup(of: (RelativePath, Result<any StagedFile, any Error>).self) { group in
            var next = files.makeIterator()
            func startNext() -> Bool {
                guard let (goal, _) = next.next() else { return false }
                group.addTask {
                    do {
                        let staged = try await self.assemble(goal.chunks, path: goal.path, version: goal.version, facts: facts,
                                                             leavingOut: sharing.borrowed[goal.path] ?? [:])
                        return (goal.path, .success(staged))
                    } catch {
                        return (goal.path, .failure(error))
                    }
                }
                return true
            }
            for _ in 0..<Self.assembleWidth where !startNext() { break }
            while let (path, file) = await group.next() {
                switch file {
                case .success(let file): staged[path] = file
                case .failure(let error): fetchFailures[path] = error
                }
                _ = startNext()
            }
        }
        let chunkLists = Dictionary(files.map { ($0.goal.path, $0.goal.chunks) }, uniquingKeysWith: { first, _ in first })
        for (path, borrowed) in sharing.borrowed {
            guard let file = staged[path], let chunks = chunkLists[path] else { continue }
            let version = SwarmVersion(container: id, path: path, contentKey: ContentKey.of(chunks), size: chunks.reduce(0) { $0 + UInt64($1.size) })
            do { try await fill(file, version: version, from: borrowed, of: staged, holders: facts.holders[path] ?? []) } catch {
                file.discard()
                staged[path] = nil
                fetchFailures[path] = error
            }
        }
        for (goal, _) in files { if let error = fetchFailures[goal.path] { failed(goal, error, "could not fetch a file") } }
        var commits: [StagedCommit] = []
        var planned: [HistoryEntry] = []
        for (goal, local) in files {
            guard let file = staged[goal.path] else { continue }
            // Edited here while its content was on the way: the next pass decides again.
            if let local, !local.item.deleted, disk.stat(goal.path) != local.stat {
                file.discard()
                continue
            }
            // The disk checks again at the rename: a client may write the path meanwhile.
            let replacing: StagedCommit.Replacing = if let local, !local.item.deleted, let seen = local.stat { .unchanged(seen) } else { .nothing }
            let kept = replacing == .nothing ? nil : plannedHistory(of: local, reason: .replaced, by: goal.modifiedBy)
            if let kept { planned.append(kept) }
            commits.append(StagedCommit(staged: file, path: goal.path, metadata: FileMetadata(of: goal), replacing: replacing,
                                        keepReplacedAs: kept?.name))
        }
        let kept: [HistoryEntry]
        do { kept = try reserveHistory(planned) } catch {
            for commit in commits { commit.staged.discard() }
            for (goal, _) in files where staged[goal.path] != nil { failed(goal, error, "could not record the versions it replaces") }
            return writes
        }
        // The flush waits for the disk: off the actor (a child task, on the engine's pool), so
        // other work goes on meanwhile.
        async let committed = disk.commitAll(commits)
        let results = await committed
        dropHistory(kept.filter { if case .success = results[$0.path] { false } else { true } })
        for (goal, _) in files {
            switch results[goal.path] {
            case .success(let stat): writes.append(ItemWrite(item: goal, stat: stat, settlesNeed: true))
            case .failure(let error):
                failed(goal, error, "could not write file")
            case nil: break
            }
        }
        return writes
    }

    /// Writes into `file` the chunks it left out, from the files of the group that hold them;
    /// those whose file could not be fetched it fetches itself.
    private func fill(_ file: any StagedFile, version: SwarmVersion, from borrowed: [ChunkHash: SharedChunks.Source],
                      of staged: [RelativePath: any StagedFile], holders: [DeviceID]) async throws {
        var unheld: [ChunkRef] = []
        for (_, source) in borrowed {
            guard let holder = staged[source.path] else {
                unheld += source.places.map { ChunkRef(offset: $0, size: source.chunk.size, hash: source.chunk.hash) }
                continue
            }
            let bytes = try holder.read(source.chunk.size, at: source.chunk.offset)
            for offset in source.places { try file.write(bytes, at: offset) }
        }
        try await fetchAll(unheld.sorted { $0.offset < $1.offset }, of: version, holders: holders, holding: nil, announcing: false, into: file)
    }

    /// The item to write when applying `target` is plainly creating a folder, or creating or
    /// replacing a file: no conflict version to keep or prune, no local edit since the last
    /// scan or held back in a receive-only container, no case twin (`twins` of the new paths;
    /// nil when they could not be read), not an on-demand container. Nil when the
    /// one-at-a-time path decides.
    private func plainGoal(_ target: Item, local: IndexedItem?, twins: [RelativePath: RelativePath]?) -> Item? {
        guard !onDemand, !target.deleted, target.kind != .symlink, state.held[target.path] == nil,
              case .applyRemote(let goal) = Reconciliation.reconcile(local: local?.item, remote: target),
              goal.conflicts.isEmpty else { return nil }
        if let local, !local.item.deleted {
            guard goal.kind == .file, local.item.kind == .file, local.item.conflicts.isEmpty, local.downloaded,
                  let stat = local.stat, disk.stat(goal.path) == stat else { return nil }
            return goal
        }
        guard let twins, twins[goal.path] == nil else { return nil }
        return goal
    }
}
