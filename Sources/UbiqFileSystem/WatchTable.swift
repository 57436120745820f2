#if canImport(Glibc)
import Glibc
#endif
import Logging
import UbiqModel

/// The inotify watches of one container: one per folder (inotify is not recursive), each
/// mapped to its container-relative folder ("" for the root).
struct WatchTable: Sendable {
    static let mask = UInt32(bitPattern:
        IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

    let inotify: Int32
    let root: String
    /// Where the table tells others how much it watches.
    let gauge: WatchGauge
    private(set) var folders: [Int32: String] = [:] {
        didSet { publish() }
    }
    /// Set when the kernel refused a watch (usually `fs.inotify.max_user_watches`).
    private(set) var limitReached = false {
        didSet { publish() }
    }

    init(inotify: Int32, root: String, gauge: WatchGauge = WatchGauge()) {
        self.inotify = inotify
        self.root = root
        self.gauge = gauge
    }

    private func publish() {
        gauge.set(WatchCount(watches: folders.count, limitReached: limitReached))
    }

    func folder(of descriptor: Int32) -> String? { folders[descriptor] }

    /// Watches `relative` and every folder below it, skipping `.ubiq/` and `*.nosync`.
    /// Returns the errno of watching `relative` itself, 0 on success.
    @discardableResult
    mutating func addTree(_ relative: String, logger: Logger) -> Int32 {
        let absolute = relative.isEmpty ? root : root + "/" + relative
        let wd = inotify_add_watch(inotify, absolute, Self.mask)
        guard wd >= 0 else {
            let code = errno
            if code == ENOSPC {
                if !limitReached {
                    logger.error("the kernel's limit of inotify watches is reached: this folder and what it holds are not watched, and the agent rescans the container instead; raise fs.inotify.max_user_watches (sysctl) and restart the agent to watch them all",
                                 metadata: ["path": "\(absolute)", "watches": "\(folders.count)"])
                    limitReached = true
                }
            } else if code != ENOENT && code != ENOTDIR {
                logger.warning("cannot watch folder", metadata: ["path": "\(absolute)", "errno": "\(code)"])
            }
            return code
        }
        folders[wd] = relative
        let fd = open(absolute, Posix.directoryFlags)
        guard fd >= 0 else { return 0 }
        let folder = OwnedDescriptor(fd)
        for entry in Posix.directoryEntries(of: folder.fd).names {
            guard let name = String(validating: entry, as: UTF8.self), !name.hasSuffix(".nosync") else { continue }
            if relative.isEmpty && name == RelativePath.agentFolder { continue }
            guard let st = Posix.lstat(at: folder.fd, name), Posix.kind(of: st.st_mode) == .directory else { continue }
            addTree(relative.isEmpty ? name : relative + "/" + name, logger: logger)
        }
        return 0
    }

    /// Stops watching `relative` and everything below it (the folder moved away).
    mutating func removeTree(_ relative: String) {
        let prefix = relative + "/"
        for (wd, folder) in folders where folder == relative || folder.hasPrefix(prefix) {
            inotify_rm_watch(inotify, wd)
            folders[wd] = nil
        }
    }

    mutating func forget(_ descriptor: Int32) {
        folders[descriptor] = nil
    }
}
