import Foundation
import UbiqModel

/// Thrown by a scan of a container whose folder is not this container's (`FolderCheck`):
/// nothing it saw is recorded.
public struct FolderUnavailableError: Error, Sendable, CustomStringConvertible {
    public let reason: FolderUnavailable?

    public var description: String {
        "the container is unavailable: " + (reason?.reason ?? "its folder is not there")
    }
}

/// A folder is itself (DESIGN.md §3): the container is synced only while its folder is there
/// and carries its marker. Looked at when the container starts, before and after every scan,
/// at every pull pass, and every ``folderLookInterval`` while it is unavailable, so that a
/// disk that comes back resumes by itself. While it is unavailable nothing of it is scanned,
/// applied, served or announced; peers' index updates are still recorded, as while paused.
extension ContainerSync {
    /// How often an unavailable container looks for its folder.
    static let folderLookInterval = Duration.seconds(1)

    /// Why the container is not synced now; nil while it is.
    public nonisolated var unavailability: FolderUnavailable? { board.withLock { $0.unavailable } }
    public nonisolated var isAvailable: Bool { unavailability == nil }

    /// Yields whether the folder is available, now and at every change: the watcher watches
    /// only a folder that is there.
    public func availabilityChanges() -> AsyncStream<Bool> {
        availabilityFeed.subscribe(initial: isAvailable)
    }

    enum FolderLook: Equatable {
        case available
        /// Available again after it was not: everything is to be scanned.
        case returned
        case unavailable
    }

    /// Looks at the folder now, and acts on what changed: prepares it the first time it is
    /// there (making it and its marker on a first start), says once why it is gone.
    @discardableResult
    func checkFolder() -> FolderLook {
        let verdict: FolderCheck.Verdict
        do {
            let remembered = try state.rememberedFolder ?? index.rememberedFolder(id)
            state.remember(remembered)
            var lookupFailed = false
            verdict = FolderCheck.judge(disk.probeFolder(), expected: FolderMarker(container: id.rawValue, account: account, folder: ""),
                                        remembered: remembered, indexKnowsFiles: { [index, id] in
                                            do { return try index.knowsFiles(id) } catch {
                                                lookupFailed = true
                                                return true
                                            }
                                        }, path: disk.location)
            if lookupFailed { throw IndexLookupFailed() }
        } catch {
            logger.error("could not read what the index remembers of the folder", metadata: ["error": "\(error)"])
            return isAvailable ? .available : .unavailable
        }
        let now: ContainerState.FolderState
        do {
            switch verdict {
            case .create:
                try disk.prepare()
                try markFolderAnew()
                logger.info("made the container's folder", metadata: ["path": "\(disk.location)"])
            case .available(let writeMarker, let remember):
                if writeMarker { try markFolderAnew() } else if let changed = remember { try rememberFolder(changed) }
            case .unavailable:
                break
            }
            if case .unavailable(let reason) = verdict { now = .unavailable(reason) } else { now = .available }
        } catch {
            now = .unavailable(FolderUnavailable(.unusable, "the folder \(disk.location) cannot be prepared: \(error); syncing resumes by itself once it can"))
        }
        switch state.folderLooked(now) {
        case .same, .first:
            return .available
        case .returned:
            prepareFolder()
            logger.notice("the container's folder is back; syncing resumes", metadata: ["path": "\(disk.location)"])
            availabilityFeed.yield(true)
            announce()
            return .returned
        case .lost(let reason):
            logger.warning("container unavailable: nothing of it is synced until its folder is back", metadata: [
                "reason": "\(reason.reason)", "code": "\(reason.code.rawValue)"])
            availabilityFeed.yield(false)
            return .unavailable
        case .otherReason(let reason):
            logger.info("container still unavailable", metadata: ["reason": "\(reason.reason)", "code": "\(reason.code.rawValue)"])
            return .unavailable
        case .stillUnavailable:
            return .unavailable
        }
    }

    /// Throws while the folder is not there (looked at now), saying why and what to do.
    func requireFolder() throws {
        guard checkFolder() != .unavailable else { throw FolderUnavailableError(reason: unavailability) }
    }

    /// The watcher saw the folder's root or `.ubiq/` go (an unmount, a removal, a rename):
    /// looked at now, not at the next scan.
    public func folderMayHaveGone() {
        checkFolder()
    }

    /// Looks for an unavailable container's folder; scans it whole when it is back.
    func lookForFolder() async {
        guard checkFolder() == .returned else { return }
        await localChanges([nil])
        requestPull()
    }

    /// Writes a new marker (a new folder ID) and remembers it with the root's numbers.
    func markFolderAnew() throws {
        // Not the environment's seeded generator: the simulator's schedules stay as they were.
        let marker = FolderMarker.new(container: id.rawValue, account: account, random: { UInt64.random(in: .min ... .max) })
        try disk.writeMarker(marker)
        guard case .folder(let device, let inode) = disk.probeFolder().root else {
            throw FolderUnavailableError(reason: nil)
        }
        try rememberFolder(RememberedFolder(folder: marker.folder, device: device, inode: inode))
        logger.info("marked the container's folder", metadata: ["folder": "\(marker.folder)"])
    }

    private func rememberFolder(_ folder: RememberedFolder) throws {
        try index.remember(id, folder: folder)
        state.remember(folder)
    }

    private struct IndexLookupFailed: Error {}

    /// What a folder needs once it is known to be this container's: its subfolders, no
    /// staged files of a run before, the history checked against its files.
    func prepareFolder() {
        do { try disk.prepare() } catch {
            logger.warning("could not prepare the container's folder", metadata: ["error": "\(error)"])
        }
        reconcileHistory()
    }
}
