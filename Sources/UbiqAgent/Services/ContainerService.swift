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
        let watcher = try Watcher(layout: ContainerLayout(root: root), options: WatchAggregator.Options(
            settleDelay: options.closeDelay, modifyDelay: options.modifyDelay, maximumDelay: options.maxDelay,
            packages: PackageRules(extensions: options.packageExtensions)), logger: logger)
        defer { watcher.close() }
        await withDiscardingTaskGroup { group in
            group.addTask { await container.run() }
            group.addTask {
                for await batch in watcher.batches {
                    await container.localChanges(batch.rescanAll ? [nil] : Set(batch.paths.map { Optional($0) }), folders: batch.folders)
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }
}

extension ContainerService: CustomStringConvertible {
    var description: String { "ContainerService(\(container.id))" }
}
