import ArgumentParser
import Foundation
import Logging
import UbiqSimulation

/// `ubiq-sim`: runs the engine's deterministic simulator over many seeds for as long as
/// asked, shrinks each failing schedule to a short one and prints how to replay it
/// (`scripts/simulate.sh` builds it in release mode with deterministic hashing).
@main
struct SimulateCommand: ParsableCommand {
    /// `UBIQ_SIM_LOG=1`: the engine's debug log on standard error (with `UBIQ_SIM_WATCH`, a
    /// path's state on every device after each step).
    static var logger: Logger? {
        guard ProcessInfo.processInfo.environment["UBIQ_SIM_LOG"] != nil else { return nil }
        var logger = Logger(label: "sim", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .debug
        return logger
    }

    static let configuration = CommandConfiguration(
        commandName: "ubiq-sim", abstract: "Run the sync engine's deterministic simulator over many seeds.")

    @Option(help: "The first seed.") var from: UInt64 = 1
    @Option(help: "How many seeds to run (with --minutes, the most).") var count: Int = 100
    @Option(help: "Stop starting seeds after this many minutes.") var minutes: Double?
    @Option(help: "Agitation steps per seed.") var steps: Int = 1000
    @Option(help: "Devices per world (3–5).") var devices: Int = 3
    @Flag(help: "Shrink each failing schedule.") var shrink = false
    @Option(help: "Runs a shrink may try.") var shrinkTries = 400
    @Option(help: ArgumentHelp("Steps drawn but not done, as a shrink prints them (769,770,...), to replay a shrunk schedule.",
                               valueName: "steps"))
    var skip: String = ""
    @Option(help: ArgumentHelp(
        "Keep the devices' indexes as SQLite files in a folder per seed here, to look into; a passing seed's folder is removed.",
        discussion: "Without it the indexes are in memory, which runs the same schedule about a third faster."))
    var indexDirectory: String?

    func validate() throws {
        guard (2...5).contains(devices) else { throw ValidationError("--devices must be 2 to 5") }
        guard steps > 0, count > 0 else { throw ValidationError("--steps and --count must be positive") }
        guard skipping != nil else { throw ValidationError("--skip takes step numbers separated by commas, as a shrink prints them") }
    }

    /// The steps of `--skip`; nil where it is not a list of numbers.
    var skipping: Set<Int>? {
        var steps: Set<Int> = []
        for part in skip.split(separator: ",", omittingEmptySubsequences: true) {
            guard let step = Int(part.trimmingCharacters(in: .whitespaces)), step > 0 else { return nil }
            steps.insert(step)
        }
        return steps
    }

    func run() throws {
        if ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] == nil {
            print("note: SWIFT_DETERMINISTIC_HASHING is not set; a failing seed may not replay the same way")
        }
        let started = ContinuousClock.now
        let deadline = minutes.map { started + .seconds($0 * 60) }
        var runs = 0, failed: [UInt64] = [], totalSteps = 0, jobs = 0
        for seed in from..<(from + UInt64(count)) {
            if let deadline, ContinuousClock.now >= deadline { break }
            let outcome = try simulate(seed, steps: steps, skipping: skipping ?? [])
            runs += 1
            totalSteps += steps
            jobs += outcome.jobsRun
            guard !outcome.passed else { continue }
            failed.append(seed)
            print(outcome.report)
            if shrink {
                let shrunk = try Shrinker(budget: shrinkTries) { steps, skipping in try !simulate(seed, steps: steps, skipping: skipping).passed }
                    .shrink(steps: steps)
                let kept = shrunk.steps - shrunk.skipping.count
                print("shrunk: seed \(seed), \(shrunk.steps) steps, \(kept) of them done; skipped: \(shrunk.skipping.sorted())")
                print("replay it: scripts/simulate.sh --from \(seed) --count 1 --steps \(shrunk.steps) --skip "
                      + shrunk.skipping.sorted().map(String.init).joined(separator: ","))
                print(try simulate(seed, steps: shrunk.steps, skipping: shrunk.skipping).report)
            }
        }
        let elapsed = ContinuousClock.now - started
        print("\(runs) seeds from \(from), \(totalSteps) steps, \(jobs) jobs, \(devices) devices, in \(elapsed); "
              + "\(failed.count) failed\(failed.isEmpty ? "" : ": \(failed)")")
        if !failed.isEmpty { throw ExitCode(1) }
    }

    private func simulate(_ seed: UInt64, steps: Int, skipping: Set<Int>) throws -> SimulationOutcome {
        let folder = indexDirectory.map { "\($0)/seed-\(seed)-\(UUID().uuidString.prefix(8))" }
        let outcome = try Simulation.run(seed: seed, devices: devices, steps: steps, skipping: skipping, directory: folder, logger: Self.logger)
        if let folder {
            if outcome.passed { try? FileManager.default.removeItem(atPath: folder) } else { print("the devices' indexes: \(folder)") }
        }
        return outcome
    }
}
