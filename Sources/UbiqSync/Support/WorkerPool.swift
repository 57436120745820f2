import Foundation

/// A fixed set of threads of the engine's own for work that blocks: SQLite, fsync, file
/// reads and writes, hashing, `copy_file_range`. Swift's cooperative pool has one thread
/// per core (two here); work that blocks there keeps the control socket, pings and every
/// other task waiting. The engine's actors run on serial executors over this pool
/// (``serialExecutor()``), and the tasks they start prefer it (`withTaskExecutorPreference`),
/// so the cooperative pool stays free for everything that does not block.
public final class WorkerPool: TaskExecutor, @unchecked Sendable {
    public let threadCount: Int
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var queue = JobQueue()

    public init(threads: Int, name: String = "ubiq-worker") {
        threadCount = max(1, threads)
        for index in 0..<threadCount {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// The pool the agent's engine runs on: one thread per core. Twice as many made the
    /// 512 MiB transfer 20% slower and each agent 10–15 MiB larger on two cores: hashing
    /// threads took turns on the cores, and each thread's allocations kept an arena.
    public static let engine = WorkerPool(threads: max(2, ProcessInfo.processInfo.activeProcessorCount))

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        queue.append(.task(job))
        condition.signal()
        condition.unlock()
    }

    /// A serial executor whose jobs run on this pool, one at a time: for an actor.
    public func serialExecutor() -> PoolSerialExecutor { PoolSerialExecutor(pool: self) }

    fileprivate func submit(_ drain: PoolSerialExecutor) {
        condition.lock()
        queue.append(.serial(drain))
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let next = queue.removeFirst()
            condition.unlock()
            switch next {
            case .task(let job): job.runSynchronously(on: asUnownedTaskExecutor())
            case .serial(let executor): executor.drain()
            }
        }
    }

    fileprivate enum Work {
        case task(UnownedJob)
        case serial(PoolSerialExecutor)
    }

    /// First in, first out, without moving the elements on each removal.
    private struct JobQueue {
        private var items: [Work?] = []
        private var head = 0

        var isEmpty: Bool { head == items.count }

        mutating func append(_ work: Work) { items.append(work) }

        mutating func removeFirst() -> Work {
            let work = items[head]!
            items[head] = nil
            head += 1
            if head > 1024 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return work
        }
    }
}

/// An actor's executor on a ``WorkerPool``: its jobs run one at a time, in order, on
/// whichever pool thread is free; after a few jobs it lets the pool's other work go first.
public final class PoolSerialExecutor: SerialExecutor, @unchecked Sendable {
    private let pool: WorkerPool
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var jobs: [UnownedJob] = []
    /// Guarded by `lock`: a drain is queued on the pool or running.
    private var scheduled = false
    /// Jobs run before the drain goes to the back of the pool's queue.
    private static let turn = 16

    fileprivate init(pool: WorkerPool) { self.pool = pool }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.lock()
        jobs.append(job)
        let schedule = !scheduled
        scheduled = true
        lock.unlock()
        if schedule { pool.submit(self) }
    }

    fileprivate func drain() {
        lock.lock()
        let batch = jobs.prefix(Self.turn)
        jobs.removeFirst(batch.count)
        lock.unlock()
        for job in batch {
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: pool.asUnownedTaskExecutor())
        }
        lock.lock()
        let more = !jobs.isEmpty
        if !more { scheduled = false }
        lock.unlock()
        if more { pool.submit(self) }
    }
}
