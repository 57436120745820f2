import Logging
import ServiceLifecycle
import UbiqConfig
import UbiqFileSystem
import UbiqModel
import UbiqSync

/// Runs one container: its puller, and its inotify watcher feeding rescans. The watcher
/// watches only a folder that is there: it is made when the container is available and
/// closed when it is not, so that a disk mounted again is watched anew. Where the kernel's
/// watch limit leaves folders unwatched, or the folder cannot be watched, the container is
/// rescanned whole every ``WatchStates/unwatchedRescan`` instead.
struct ContainerService: Service {
    let container: ContainerSync
    let root: String
    let options: WatcherOptions
    let watches: WatchStates
    let logger: Logger

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await container.run() }
            group.addTask { await watchWhileAvailable() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    private func watchWhileAvailable() async {
        var availability = await container.availabilityChanges().makeAsyncIterator()
        while let available = await availability.next() {
            guard available else { continue }
            let watcher: Watcher
            do { watcher = try makeWatcher() } catch {
                // The folder went again between the two looks, or cannot be watched.
                await container.folderMayHaveGone()
                if container.isAvailable {
                    logger.error("cannot watch the container; it is rescanned on a timer instead",
                                 metadata: ["error": "\(error)", "every": "\(WatchStates.unwatchedRescan)"])
                    watches.set(.notWatched(reason: "\(error)"), for: container.id)
                    await withDiscardingTaskGroup { group in
                        group.addTask { await rescanWhileUnwatched() }
                        await availability.waitFor(false)
                        group.cancelAll()
                    }
                    watches.set(nil, for: container.id)
                }
                continue
            }
            watches.set(.watching(watcher), for: container.id)
            await withDiscardingTaskGroup { group in
                group.addTask { await feed(watcher) }
                group.addTask { await rescanWhileUnwatched() }
                await availability.waitFor(false)
                watcher.close()
                group.cancelAll()
            }
            watches.set(nil, for: container.id)
        }
    }

    /// Rescans the whole container on a timer while some of it is not watched, until cancelled.
    private func rescanWhileUnwatched() async {
        while (try? await Task.sleep(for: WatchStates.unwatchedRescan)) != nil {
            guard watches.needsRescans(container.id) else { continue }
            await container.localChanges([nil])
        }
    }

    private func makeWatcher() throws -> Watcher {
        try Watcher(layout: ContainerLayout(root: root), options: WatchAggregator.Options(
            settleDelay: options.closeDelay, modifyDelay: options.modifyDelay, maximumDelay: options.maxDelay,
            packages: PackageRules(extensions: options.packageExtensions)), logger: logger)
    }

    private func feed(_ watcher: Watcher) async {
        for await batch in watcher.batches {
            if batch.rootLost {
                await container.folderMayHaveGone()
            } else {
                await container.localChanges(batch.rescanAll ? [nil] : Set(batch.paths.map { Optional($0) }), folders: batch.folders)
            }
        }
    }
}

extension AsyncStream<Bool>.Iterator {
    /// Waits until the stream yields `value`, or ends.
    fileprivate mutating func waitFor(_ value: Bool) async {
        while let next = await self.next(), next != value {}
    }
}

extension ContainerService: CustomStringConvertible {
    var description: String { "ContainerService(\(container.id))" }
}
