import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a `DNSServiceLoop` drives: created on the loop thread, used only there.
protocol DNSServiceDriver: AnyObject, SendableMetatype {
    /// The loop is ending: report what must be reported. The loop deallocates every ref
    /// right after.
    func loopWillStop()
}

/// One dedicated thread that owns every DNSServiceRef of an advertiser or browser: it polls
/// the refs' sockets and a wake pipe, calls `DNSServiceProcessResult` on the ready ones (so
/// all C callbacks run on this thread), runs submitted jobs and timers, and deallocates all
/// refs when stopped. Other threads only reach the driver through `submit`.
final class DNSServiceLoop<Driver: DNSServiceDriver>: Sendable {
    private struct Queue {
        var jobs: [@Sendable (Driver) -> Void] = []
        var stopRequested = false
        /// Set (with the last jobs taken) when the loop has stopped accepting jobs.
        var closed = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let queue = Mutex(Queue())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Starts the thread; `makeDriver` runs first on it.
    init(name: String, makeDriver: @escaping @Sendable (LoopContext) -> Driver) throws(DiscoveryError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw DiscoveryError(.serviceFailed, "could not create the discovery loop's wake pipe: \(String(cString: strerror(errno)))")
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        let thread = Thread { [self] in run(makeDriver) }
        thread.name = name
        thread.start()
    }

    /// Runs `job` on the loop thread with the driver. False when the loop has stopped; the
    /// job then never runs.
    @discardableResult
    func submit(_ job: @escaping @Sendable (Driver) -> Void) -> Bool {
        queue.withLock { queue in
            guard !queue.closed else { return false }
            queue.jobs.append(job)
            wake()
            return true
        }
    }

    /// Runs `body` on the loop thread and returns its result; nil when the loop has stopped.
    func call<T: Sendable>(_ body: @escaping @Sendable (Driver) -> T) async -> T? {
        await withCheckedContinuation { continuation in
            let accepted = submit { driver in continuation.resume(returning: body(driver)) }
            if !accepted { continuation.resume(returning: nil) }
        }
    }

    /// Asks the loop to stop; jobs already submitted still run first. Returns at once.
    func stop() {
        queue.withLock { queue in
            guard !queue.stopRequested else { return }
            queue.stopRequested = true
            if !queue.closed { wake() }
        }
    }

    /// Returns when the thread has deallocated every ref and ended.
    func waitUntilFinished() async {
        await withCheckedContinuation { continuation in
            let finished = queue.withLock { queue in
                if !queue.finished { queue.waiters.append(continuation) }
                return queue.finished
            }
            if finished { continuation.resume() }
        }
    }

    /// Called with the queue locked, so the pipe is still open.
    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func run(_ makeDriver: @Sendable (LoopContext) -> Driver) {
        let context = LoopContext()
        let driver = makeDriver(context)
        while true {
            let (jobs, stopping) = queue.withLock { queue in
                defer { queue.jobs = [] }
                if queue.stopRequested { queue.closed = true }
                return (queue.jobs, queue.stopRequested)
            }
            for job in jobs { job(driver) }
            if stopping { break }
            context.fireDueTimers()

            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let ids = context.pollSet(into: &fds)
            let ready = poll(&fds, nfds_t(fds.count), context.pollTimeout())
            if ready < 0 {
                if errno == EINTR { continue }
                // poll() only fails this way on a bug (EFAULT, EINVAL); stop rather than spin.
                stop()
                continue
            }
            if fds[0].revents != 0 { drainWakePipe() }
            for (index, id) in ids.enumerated() where fds[index + 1].revents != 0 {
                // After a failure (avahi went away) no other ref is processed; all are
                // deallocated when the loop ends.
                if context.wantsStop { break }
                context.process(id)
            }
            if context.wantsStop { stop() }
        }
        driver.loopWillStop()
        context.deallocateAll()
        let waiters = queue.withLock { queue in
            close(wakeRead)
            close(wakeWrite)
            queue.finished = true
            defer { queue.waiters = [] }
            return queue.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
