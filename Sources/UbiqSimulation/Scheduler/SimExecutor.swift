import UbiqSync

/// One life of one simulated device as an executor: the tasks it starts and its actors'
/// jobs go to the scheduler, tagged with the device, so a crash can drop them all.
public final class SimExecutor: EngineExecutor, Sendable {
    let scheduler: SimScheduler
    let device: Int
    let life: Int

    init(scheduler: SimScheduler, device: Int, life: Int) {
        self.scheduler = scheduler
        self.device = device
        self.life = life
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        scheduler.enqueue(.task(UnownedJob(job), self))
    }

    public func makeSerialExecutor() -> any SerialExecutor { SimSerialExecutor(owner: self) }
}

/// An actor's executor in the simulation. Its jobs run one at a time because the scheduler
/// runs only one job at a time; their order among the device's other jobs is the seed's.
final class SimSerialExecutor: SerialExecutor, Sendable {
    let owner: SimExecutor

    init(owner: SimExecutor) { self.owner = owner }

    func enqueue(_ job: consuming ExecutorJob) {
        owner.scheduler.enqueue(.serial(UnownedJob(job), self))
    }
}
