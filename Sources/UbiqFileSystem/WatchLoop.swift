#if canImport(Glibc)
import Glibc
#endif
import Logging
import UbiqModel

/// The watcher thread's work: read inotify events, keep the watch table current, feed the
/// aggregator and yield its batches when they are due.
struct WatchLoop {
    var table: WatchTable
    var aggregator: WatchAggregator
    let logger: Logger
    let continuation: AsyncStream<WatchBatch>.Continuation
    /// The root, or its `.ubiq/`, went in the events just read.
    private var rootLost = false

    init(table: WatchTable, options: WatchAggregator.Options, logger: Logger, continuation: AsyncStream<WatchBatch>.Continuation) {
        self.table = table
        self.aggregator = WatchAggregator(options: options)
        self.logger = logger
        self.continuation = continuation
    }

    mutating func run(wakeFD: Int32) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer { buffer.deallocate() }
        var fds = [
            pollfd(fd: table.inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let timeout = aggregator.nextDeadline().map { Self.milliseconds(until: $0) } ?? -1
            let ready = poll(&fds, 2, timeout)
            if ready < 0 && errno != EINTR {
                logger.error("watcher poll failed; stopping the watcher", metadata: ["errno": "\(errno)"])
                return
            }
            if fds[1].revents != 0 { return }
            if fds[0].revents & Int16(POLLIN) != 0 {
                guard readEvents(into: buffer) else { return }
            } else if fds[0].revents != 0 {
                logger.error("inotify descriptor failed; stopping the watcher")
                return
            }
            if rootLost {
                rootLost = false
                continuation.yield(WatchBatch(rootLost: true))
            }
            if let batch = aggregator.flush(at: .now) {
                continuation.yield(batch)
            }
        }
    }

    /// Milliseconds until `deadline`, rounded up so poll never wakes just before it.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }

    /// Reads everything queued; false when the descriptor is unusable.
    private mutating func readEvents(into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        while true {
            let n = read(table.inotify, buffer.baseAddress!, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return true }
                logger.error("reading inotify events failed; stopping the watcher", metadata: ["errno": "\(errno)"])
                return false
            }
            if n == 0 { return true }
            let now = ContinuousClock.now
            for event in InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: buffer[..<n])) {
                handle(event, at: now)
            }
        }
    }

    private mutating func handle(_ event: InotifyEvent, at now: ContinuousClock.Instant) {
        if event.has(IN_Q_OVERFLOW) {
            logger.warning("inotify queue overflowed; rescanning the whole container")
            aggregator.recordOverflow(at: now)
            return
        }
        if event.has(IN_UNMOUNT) {
            // Each watch on the file system hears it; the folder is looked at once.
            if !rootLost { logger.warning("a file system under the container was unmounted") }
            rootLost = true
        }
        guard let folder = table.folder(of: event.descriptor) else { return }
        if event.has(IN_IGNORED) {
            table.forget(event.descriptor)
            if folder.isEmpty {
                rootLost = true
                aggregator.recordOverflow(at: now)
            }
            return
        }
        if event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) {
            if folder.isEmpty {
                logger.warning("the container root was moved or deleted")
                rootLost = true
                aggregator.recordOverflow(at: now)
            }
            return  // otherwise the parent's watch reports the name
        }
        if folder.isEmpty, event.name == Array(RelativePath.agentFolder.utf8), event.has(IN_DELETE) || event.has(IN_MOVED_FROM) {
            logger.warning("the container's .ubiq folder was moved or deleted")
            rootLost = true
            return
        }
        guard !event.name.isEmpty else { return }
        guard let name = String(validating: event.name, as: UTF8.self) else {
            rescanFolder(folder, at: now)
            return
        }
        if name.hasSuffix(".nosync") || (folder.isEmpty && name == RelativePath.agentFolder) { return }
        let relative = folder.isEmpty ? name : folder + "/" + name
        guard let path = try? RelativePath(relative) else {
            rescanFolder(folder, at: now)
            return
        }

        let isFolder = event.has(IN_ISDIR)
        if isFolder && event.has(IN_MOVED_FROM) {
            table.removeTree(relative)
            // An exchange (`renameat2(RENAME_EXCHANGE)`, how a package's new version is put in
            // place) reports the folder that came in before the one that left, by the same
            // name: what is there now is watched again.
            if let st = Posix.lstat(at: AT_FDCWD, table.root + "/" + relative), Posix.kind(of: st.st_mode) == .directory {
                table.addTree(relative, logger: logger)
            }
        }
        if isFolder && (event.has(IN_CREATE) || event.has(IN_MOVED_TO)) { table.addTree(relative, logger: logger) }
        aggregator.record(path, change(of: event, isFolder: isFolder, relative: relative), at: now)
    }

    /// A name that cannot be a path (not UTF-8) came or went: its folder is scanned again,
    /// which lists it in status as not synced, or no longer.
    private mutating func rescanFolder(_ folder: String, at now: ContinuousClock.Instant) {
        guard let path = try? RelativePath(folder) else {
            aggregator.recordOverflow(at: now)
            return
        }
        aggregator.record(path, .settled, at: now)
    }

    /// A created file is still being written (a close will follow) unless it is a link or
    /// other non-regular file, which is complete as soon as it exists.
    private func change(of event: InotifyEvent, isFolder: Bool, relative: String) -> WatchAggregator.Change {
        if event.has(IN_MODIFY) { return .modified }
        if isFolder && event.has(IN_ATTRIB) { return .folderItself }
        if event.has(IN_CREATE) && !isFolder {
            var st = stat()
            if lstat(table.root + "/" + relative, &st) == 0, Posix.kind(of: st.st_mode) == .regular {
                return .modified
            }
        }
        return .settled
    }
}
