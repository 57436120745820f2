import Foundation
import Logging
import Synchronization
import UbiqChunking
import UbiqModel
import UbiqTestSupport

/// What one seeded run of the simulator found.
public struct SimulationOutcome: Sendable {
    public var seed: UInt64
    public var steps: Int
    /// Steps drawn but not done (a shrunk schedule).
    public var skipped: Set<Int> = []
    /// Jobs the scheduler ran: the measure of how much the engine did.
    public var jobsRun: Int
    public var simulatedTime: Duration
    /// Whether the devices reached the same state after the agitation stopped.
    public var converged: Bool
    /// Every broken invariant, one line each; empty for a good run.
    public var violations: [String]
    /// What the agitator did, one line per step.
    public var trace: [String]
    /// Paths and conflict versions on device 0 at the end, to show the run did something.
    public var settledPaths = 0
    public var conflictVersions = 0
    /// Of those, file packages and packages' conflict versions.
    public var packages = 0
    public var packageVersions = 0

    public var passed: Bool { converged && violations.isEmpty }

    /// Equal for two runs of one seed when the run replays exactly.
    public var fingerprint: String {
        "\(jobsRun) jobs, \(simulatedTime), \(trace.count) steps, \(ChunkFingerprint.of(trace.joined(separator: "\n")))"
    }

    /// The report of a failing run: its seed first, so it can be run again.
    public var report: String {
        let skips = skipped.isEmpty ? "" : " (\(skipped.count) skipped)"
        var lines = ["seed \(seed): \(passed ? "passed" : "FAILED") after \(steps) steps\(skips), \(jobsRun) jobs, \(simulatedTime) simulated; "
                     + "\(settledPaths) paths and \(conflictVersions) conflict versions at the end "
                     + "(\(packages) packages, \(packageVersions) package versions)"]
        if !converged { lines.append("did not converge") }
        lines += violations
        lines.append("last steps:")
        // UBIQ_SIM_TRACE=all: every step, to follow one path from its start.
        lines += ProcessInfo.processInfo.environment["UBIQ_SIM_TRACE"] == "all" ? trace : Array(trace.suffix(40))
        return lines.joined(separator: "\n")
    }
}

/// The deterministic simulator's entry point: N devices, one seed, agitation, then settling
/// and the invariants.
public enum Simulation {
    /// How long the world may take to settle once agitation stops before the run counts as
    /// stuck (simulated time).
    public static let settleLimit = Duration.seconds(600)
    /// How long a converged world must stay unchanged (no index writes) to count as settled:
    /// longer than the engine's retry backoff, so a change that still waits shows.
    public static let quietWatch = Duration.seconds(90)

    /// Runs `seed`. The devices' indexes are in memory, or SQLite files in `directory`
    /// (created if missing) when given.
    public static func run(seed: UInt64, devices: Int = 3, steps: Int = 1000, skipping: Set<Int> = [], directory: String? = nil,
                           logger: Logger? = nil) throws -> SimulationOutcome {
        if let directory { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let world = try SimWorld(seed: seed, devices: devices, directory: directory, logger: logger)
        world.start()
        world.scheduler.run(for: .seconds(1))
        var agitator = Agitator(world: world, skipping: skipping)
        for _ in 0..<steps {
            agitator.step()
            agitator.collectLeasedWrites()
            agitator.collectDecisions()
        }
        world.healAll()
        agitator.bringDisksBack()
        agitator.restartAll()
        // A person decides on every deletion still held, also those that restarts hold anew.
        for _ in 0..<3 {
            world.scheduler.run(for: .seconds(2))
            agitator.decideHeldDeletions(everyone: true)
            world.scheduler.run(for: .milliseconds(100))
            agitator.collectDecisions()
        }
        agitator.steps.append("settle")
        let converged = settle(world, agitator: &agitator)
        agitator.collectLeasedWrites()
        agitator.collectDecisions()
        agitator.noteRestarts()
        var violations: [String] = []
        if !converged {
            violations.append("not settled within \(settleLimit): \(Invariants.unsettled(world) ?? "the indexes kept changing (a livelock)")")
            violations += diagnostics(world)
        }
        violations += Invariants.violations(world, log: agitator.log.writes)
        violations += agitator.log.undone(in: Invariants.settled(world.devices[0]), touches: agitator.touches,
                                          excused: Invariants.caseConflicts(world))
        violations += agitator.leasedReads.all
        violations += agitator.absences.all
        violations += agitator.decisions.all
        return SimulationOutcome(seed: seed, steps: steps, skipped: skipping, jobsRun: world.scheduler.jobsRun, simulatedTime: world.scheduler.now,
                                 converged: converged, violations: violations, trace: agitator.steps,
                                 settledPaths: world.devices[0].disk.snapshot().count,
                                 conflictVersions: (try? world.devices[0].disk.storedVersionNames().count) ?? 0,
                                 packages: world.devices[0].disk.packageTrees().count,
                                 packageVersions: world.devices[0].disk.storedPackageVersions().count)
    }
}

extension Simulation {
    /// Runs until every device agrees and their indexes then stay unchanged for
    /// ``quietWatch``; false when ``settleLimit`` passes first (stuck, or a livelock). A person
    /// decides on deletions a device holds meanwhile (a burst gathered late, or held anew by
    /// a peer's changes).
    static func settle(_ world: SimWorld, agitator: inout Agitator) -> Bool {
        let end = world.scheduler.now + settleLimit
        let holds = { world.devices.contains { $0.life?.sync.heldDeletions != nil } }
        while world.scheduler.now < end {
            guard world.scheduler.run(until: { Invariants.converged(world) || holds() }, limit: end - world.scheduler.now) else { return false }
            if holds() {
                agitator.decideHeldDeletions(everyone: true)
                world.scheduler.run(for: .milliseconds(100))
                agitator.collectDecisions()
                continue
            }
            let before = sequences(world)
            world.scheduler.run(for: quietWatch)
            if sequences(world) == before && Invariants.converged(world) { return true }
        }
        return false
    }

    /// Each device's engine state, asked for on its own executor.
    static func diagnostics(_ world: SimWorld) -> [String] {
        let lines = Lines()
        for device in world.devices {
            guard let life = device.life else { continue }
            Task(executorPreference: life.executor) {
                lines.add("d\(device.number): \(await life.sync.diagnostics())")
            }
        }
        world.scheduler.run(for: .milliseconds(10))
        return lines.all.sorted()
    }

    private static func sequences(_ world: SimWorld) -> [Int64] {
        world.devices.map { (try? $0.index.containerState(world.container).sequence) ?? -1 }
    }
}

/// Lines written by simulated tasks, read by the run.
private final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A short digest of a text, for comparing traces.
enum ChunkFingerprint {
    static func of(_ text: String) -> String { String(ChunkHasher.hash(Array(text.utf8)).hex.prefix(16)) }
}
