import Logging
import ServiceLifecycle
import UbiqConfig
import UbiqFileSystem
import UbiqModel
import UbiqSync

/// Runs one container: its puller, and its inotify watcher feeding rescans.
struct ContainerService: Service {
    let container: ContainerSync
    let root: String
    let options: WatcherOptions
    let logger: Logger

    func run() async throws {
        let watcher = try Watcher(layout: ContainerLayout(root: root), options: options.aggregatorOptions, logger: logger)
        defer { watcher.close() }
        await withDiscardingTaskGroup { group in
            group.addTask { await container.run() }
            group.addTask {
                for await batch in watcher.batches {
                    await container.localChanges(batch.scanRoots)
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}
