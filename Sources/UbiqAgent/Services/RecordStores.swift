import Foundation
import Logging
import ServiceLifecycle
import UbiqFileSystem
import UbiqControlAPI
import UbiqIndex
import UbiqModel
import UbiqSync

/// This account's record stores, in every container: opened when first used or when their
/// logs are found, each with its local SQLite file in the state folder under the account
/// (so signing in to another account never mixes stores), and fed the logs other devices
/// write as the document path brings them.
actor RecordStores: Service {
    struct Container: Sendable {
        let sync: ContainerSync
        let files: SafeFileSystem
    }

    let containers: [ContainerID: Container]
    /// `STATE/records/ACCOUNT/`: one folder per container, one file per store.
    let folder: String
    let device: DeviceID
    let wallMilliseconds: @Sendable () -> Int64
    let logger: Logger
    private var open: [ContainerID: [RecordStoreName: RecordStore]] = [:]

    init(containers: [ContainerID: Container], stateDirectory: String, account: String, device: DeviceID,
         wallMilliseconds: @escaping @Sendable () -> Int64, logger: Logger) {
        self.containers = containers
        folder = stateDirectory + "/records/" + account.prefix(16)
        self.device = device
        self.wallMilliseconds = wallMilliseconds
        self.logger = logger
    }

    /// The store `name` of `container`, opened (and brought up to date with its logs) on
    /// first use.
    func store(_ name: RecordStoreName, in container: ContainerID) throws -> RecordStore {
        if let store = open[container]?[name] { return store }
        guard let parts = containers[container] else { throw RecordStoresError.containerNotSynced(container) }
        let directory = folder + "/" + container.rawValue
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let database = try openDatabase(at: directory + "/" + name.rawValue + ".sqlite", of: name, in: container)
        let store = RecordStore(name: name, device: device, database: database, files: RecordLogFilesOnDisk(files: parts.files),
                                wallMilliseconds: wallMilliseconds, logger: logger)
        open[container, default: [:]][name] = store
        return store
    }

    /// A store's SQLite file is a cache of its logs: a damaged one is put aside and rebuilt
    /// from them.
    private func openDatabase(at path: String, of name: RecordStoreName, in container: ContainerID) throws -> RecordDatabase {
        do {
            return try RecordDatabase(path: path)
        } catch {
            guard error.code == .corrupt else { throw error }
            let aside = path + ".damaged-\(wallMilliseconds())"
            logger.warning("record store file damaged; rebuilding it from its change logs",
                           metadata: ["store": "\(name)", "container": "\(container)", "aside": "\(aside)", "error": "\(error.reason)"])
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix) }
            return try RecordDatabase(path: path)
        }
    }

    /// Opens `name` in `container` and imports whatever of its logs is new.
    func caughtUp(_ name: RecordStoreName, in container: ContainerID) async throws -> RecordStore {
        let known = open[container]?[name] != nil
        let store = try store(name, in: container)
        if !known { try await store.catchUp() }
        return store
    }

    /// The stores of `container` open here, by name, for `agent.status`.
    func status(of container: ContainerID) async -> [RecordStoreStatus]? {
        guard let stores = open[container], !stores.isEmpty else { return nil }
        var result: [RecordStoreStatus] = []
        for (name, store) in stores.sorted(by: { $0.key < $1.key }) {
            do {
                let progress = try await store.progress()
                result.append(RecordStoreStatus(name: name.rawValue, transactions: progress.imported, waiting: progress.waiting,
                                                refused: progress.refused.sorted { $0.key < $1.key }.map { RefusedLogStatus(path: $0.key.rawValue, reason: $0.value) }))
            } catch {
                logger.warning("cannot read a record store's progress", metadata: ["store": "\(name)", "error": "\(error)"])
            }
        }
        return result
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            for (id, container) in containers {
                let changes = container.sync.itemChanges()
                group.addTask { await self.follow(changes, of: id) }
                group.addTask { await self.openExisting(in: id, files: container.files) }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    /// Opens the stores whose log folders are in the container already.
    private func openExisting(in container: ContainerID, files: SafeFileSystem) async {
        do {
            for raw in try files.names(in: try RelativePath(RecordLogLayout.folder)) {
                guard let name = try? RecordStoreName(raw) else { continue }
                _ = try await caughtUp(name, in: container)
            }
        } catch {
            logger.warning("cannot open the record stores of a container", metadata: ["container": "\(container)", "error": "\(error)"])
        }
    }

    /// Imports the logs peers' changes bring, store by store.
    private func follow(_ changes: AsyncStream<ItemChange>, of container: ContainerID) async {
        for await change in changes where change.origin == .remote && !change.item.deleted {
            guard let log = RecordLogLayout.log(at: change.item.path) else { continue }
            do { try await caughtUp(log.store, in: container).importLogs([change.item.path]) } catch {
                logger.warning("cannot import a record change log", metadata: ["path": "\(change.item.path)", "error": "\(error)"])
            }
        }
    }
}

extension RecordStores: CustomStringConvertible {
    nonisolated var description: String { "RecordStores" }
}

enum RecordStoresError: Error, CustomStringConvertible {
    case containerNotSynced(ContainerID)

    var description: String {
        switch self {
        case .containerNotSynced(let id): "this agent does not sync container \(id); see `ubiq status` for the ones it does"
        }
    }
}
