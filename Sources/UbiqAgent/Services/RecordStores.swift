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
    /// The coordinated reads and writes of this agent's clients, which a deletion waits for.
    let leases: FileLeases
    /// The account's devices: one removed no longer holds compaction back.
    let devices: AccountDevices
    let logger: Logger
    private var open: [ContainerID: [RecordStoreName: RecordStore]] = [:]
    /// Stores being deleted here: not opened again until their files are gone.
    private var deleting: Set<String> = []

    init(containers: [ContainerID: Container], stateDirectory: String, account: String, device: DeviceID,
         wallMilliseconds: @escaping @Sendable () -> Int64, leases: FileLeases, devices: AccountDevices, logger: Logger) {
        self.containers = containers
        folder = stateDirectory + "/records/" + account.prefix(16)
        self.device = device
        self.wallMilliseconds = wallMilliseconds
        self.leases = leases
        self.devices = devices
        self.logger = logger
    }

    /// The store `name` of `container`, opened (and brought up to date with its logs) on
    /// first use.
    func store(_ name: RecordStoreName, in container: ContainerID) throws -> RecordStore {
        if let store = open[container]?[name] { return store }
        guard let parts = containers[container] else { throw RecordStoresError.containerNotSynced(container) }
        guard !deleting.contains("\(container)/\(name)") else { throw RecordError(.storeDeleted, "record store \(name) is being deleted; try again") }
        try FileManager.default.createDirectory(atPath: folder + "/" + container.rawValue, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let path = databasePath(name, in: container)
        if FileManager.default.fileExists(atPath: path), try !storeFolderExists(name, in: parts.files) {
            // The store's folder went while this agent was away: it was deleted.
            logger.notice("record store deleted while this agent was away; removing its local store",
                          metadata: ["store": "\(name)", "container": "\(container)"])
            removeDatabase(name, in: container)
        }
        let database = try openDatabase(at: path, of: name, in: container)
        let store = RecordStore(name: name, device: device, database: database, files: RecordLogFilesOnDisk(files: parts.files),
                                wallMilliseconds: wallMilliseconds, compactAfter: TestHooks.recordCompactAfter ?? 1000,
                                isRemoved: { [devices] in devices.isRevoked($0) }, logger: logger)
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

    private func databasePath(_ name: RecordStoreName, in container: ContainerID) -> String {
        folder + "/" + container.rawValue + "/" + name.rawValue + ".sqlite"
    }

    private func removeDatabase(_ name: RecordStoreName, in container: ContainerID) {
        let path = databasePath(name, in: container)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            do { try FileManager.default.removeItem(atPath: path + suffix) } catch {
                logger.warning("cannot remove a deleted record store's file", metadata: ["path": "\(path + suffix)", "error": "\(error)"])
            }
        }
    }

    private func storeFolderExists(_ name: RecordStoreName, in files: SafeFileSystem) throws -> Bool {
        try files.names(in: try RelativePath(RecordLogLayout.folder)).contains(name.rawValue)
    }

    /// The change logs of `name` in the container, every device's.
    private func logs(of name: RecordStoreName, in files: SafeFileSystem) throws -> [RelativePath] {
        let store = try RecordLogLayout.folder(of: name)
        var paths: [RelativePath] = []
        for device in try files.names(in: store) {
            guard let folder = try? store.appending(device), let names = try? files.names(in: folder) else { continue }
            paths += names.compactMap { try? folder.appending($0) }.filter { RecordLogLayout.log(at: $0) != nil }
        }
        return paths
    }

    /// Deletes the store everywhere, as the iCloud guide has it: under the agent's write lease
    /// on the store's folder (so no client of this device is writing in it), its local store
    /// goes, then its logs; peers remove theirs as the deletion reaches them. Returns how
    /// many logs went.
    func delete(_ name: RecordStoreName, in container: ContainerID) async throws -> Int {
        guard let parts = containers[container] else { throw RecordStoresError.containerNotSynced(container) }
        let folder = try RecordLogLayout.folder(of: name)
        let key = "\(container)/\(name)"
        guard !deleting.contains(key) else { throw RecordError(.storeDeleted, "record store \(name) is being deleted already") }
        let claim = FileLeases.Claim(container: container, path: folder, access: .write)
        guard let lease = await leases.acquire([claim], for: .agent("deleting record store \(name)"), timeout: .seconds(10)) else {
            throw RecordStoresError.folderInUse(folder)
        }
        deleting.insert(key)
        let removed: Result<[RelativePath], any Error>
        do { removed = .success(try await removeStore(name, in: container, folder: folder, files: parts.files)) } catch { removed = .failure(error) }
        deleting.remove(key)
        await leases.release(lease.id)
        let logs = try removed.get()
        await parts.sync.localChanges(Set([folder] + logs))
        logger.info("deleted a record store", metadata: ["store": "\(name)", "container": "\(container)", "logs": "\(logs.count)"])
        return logs.count
    }

    /// The local store, then the logs' folder; the logs that were there.
    private func removeStore(_ name: RecordStoreName, in container: ContainerID, folder: RelativePath, files: SafeFileSystem) async throws -> [RelativePath] {
        let logs = try logs(of: name, in: files)
        let store = open[container]?.removeValue(forKey: name)
        await store?.markDeleted()
        removeDatabase(name, in: container)
        if try storeFolderExists(name, in: files) { try files.removeTree(folder) }
        return logs
    }

    /// Another device deleted the store: once its folder is gone here, its local store goes
    /// too, and subscribers hear its records go. (Compaction removes logs, never the folder.)
    private func pathGone(_ name: RecordStoreName, in container: ContainerID) async {
        guard let parts = containers[container], !deleting.contains("\(container)/\(name)") else { return }
        guard (try? storeFolderExists(name, in: parts.files)) == false,
              open[container]?[name] != nil || FileManager.default.fileExists(atPath: databasePath(name, in: container)) else { return }
        let store = open[container]?.removeValue(forKey: name)
        await store?.markDeleted()
        removeDatabase(name, in: container)
        logger.info("record store deleted by another device; removed its local store", metadata: ["store": "\(name)", "container": "\(container)"])
    }

    /// Acknowledges and compacts the store where due, and tells peers of the files it wrote
    /// or removed.
    func maintain(_ name: RecordStoreName, in container: ContainerID) async {
        guard let store = open[container]?[name], let parts = containers[container] else { return }
        let changed = await store.maintain()
        if !changed.isEmpty { await parts.sync.localChanges(Set(changed)) }
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
        for await change in changes where change.origin == .remote {
            let path = change.item.path
            guard let name = RecordLogLayout.store(containing: path) else { continue }
            if change.item.deleted {
                await pathGone(name, in: container)
                continue
            }
            do {
                if RecordLogLayout.log(at: path) != nil {
                    try await caughtUp(name, in: container).importLogs([path])
                } else if RecordLogLayout.baseline(at: path) != nil {
                    try await caughtUp(name, in: container).adoptBaseline(at: path)
                } else if RecordLogLayout.acknowledgement(at: path) == nil {
                    continue
                }
                await maintain(name, in: container)
            } catch {
                logger.warning("cannot import a record store's file", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }
}

extension RecordStores: CustomStringConvertible {
    nonisolated var description: String { "RecordStores" }
}

enum RecordStoresError: Error, CustomStringConvertible {
    case containerNotSynced(ContainerID)
    case folderInUse(RelativePath)

    var description: String {
        switch self {
        case .containerNotSynced(let id): "this agent does not sync container \(id); see `ubiq status` for the ones it does"
        case .folderInUse(let path): "a client of this agent holds \(path) under a coordinated write; try again once it is done"
        }
    }
}
