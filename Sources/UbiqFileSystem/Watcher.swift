#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization
import UbiqModel

/// Watches a container with inotify and yields batches of changed paths, so a saved
/// document is rescanned within milliseconds instead of at the next periodic scan.
///
/// One dedicated thread reads the events and runs the `WatchAggregator`'s timers; it ends
/// when `close()` is called or the consumer stops iterating `batches`.
public final class Watcher: Sendable {
    public let batches: AsyncStream<WatchBatch>
    private let control: WatcherControl
    private let gauge = WatchGauge()

    /// The folders watched now, and whether the kernel refused a watch.
    public var count: WatchCount { gauge.value }

    /// Starts watching every folder of the container (except `.ubiq/` and `*.nosync`) before
    /// it returns, so a change made after `init` is always seen.
    public init(layout: ContainerLayout, options: WatchAggregator.Options = .init(), logger: Logger) throws(FileSystemError) {
        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { throw FileSystemError.posix(errno, "inotify_init1 for", layout.root) }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            let error = FileSystemError.posix(errno, "create wake pipe for watcher of", layout.root)
            Glibc.close(inotify)
            throw error
        }
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        var table = WatchTable(inotify: inotify, root: layout.root, gauge: gauge)
        let rootError = table.addTree("", logger: logger)
        guard rootError == 0 else {
            Glibc.close(inotify)
            Glibc.close(pipeFDs[0])
            Glibc.close(pipeFDs[1])
            throw FileSystemError.posix(rootError, "watch", layout.root)
        }
        let control = WatcherControl(inotify: inotify, wakeRead: pipeFDs[0], wakeWrite: pipeFDs[1])
        let (stream, continuation) = AsyncStream.makeStream(of: WatchBatch.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { _ in control.requestStop() }
        self.batches = stream
        self.control = control

        let initialTable = table
        let thread = Thread {
            var loop = WatchLoop(table: initialTable, options: options, logger: logger, continuation: continuation)
            loop.run(wakeFD: control.wakeRead)
            continuation.finish()
            control.threadExited()
        }
        thread.name = "ubiq-watcher"
        thread.start()
    }

    /// Stops watching; `batches` ends. Safe to call more than once.
    public func close() { control.requestStop() }

    deinit { control.requestStop() }
}

/// The descriptors shared by the watcher and its thread, closed exactly once by the thread.
final class WatcherControl: Sendable {
    private struct State {
        var stopRequested = false
        var exited = false
    }

    let inotify: Int32
    let wakeRead: Int32
    private let wakeWrite: Int32
    private let state = Mutex(State())

    init(inotify: Int32, wakeRead: Int32, wakeWrite: Int32) {
        self.inotify = inotify
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    func requestStop() {
        state.withLock { state in
            guard !state.stopRequested, !state.exited else { return }
            state.stopRequested = true
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    func threadExited() {
        state.withLock { state in
            state.exited = true
            Glibc.close(inotify)
            Glibc.close(wakeRead)
            Glibc.close(wakeWrite)
        }
    }
}
