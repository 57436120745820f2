import Foundation
import Logging
import Testing
import UbiqSimulation
import UbiqTestSupport

@Suite struct SimulationTests {
    static let triageSeeds: [UInt64] = ProcessInfo.processInfo.environment["UBIQ_SIM_SEEDS"].map {
        $0.split(separator: ",").compactMap { UInt64($0) }
    } ?? [1, 2, 3, 4, 5, 6, 7, 8]

    @Test(arguments: triageSeeds) func seedSettles(seed: UInt64) throws {
        let directory = try TempDirectory()
        let started = ContinuousClock.now
        let steps = Int(ProcessInfo.processInfo.environment["UBIQ_SIM_STEPS"] ?? "") ?? 1000
        var logger: Logger?
        if ProcessInfo.processInfo.environment["UBIQ_SIM_LOG"] != nil {
            logger = Logger(label: "sim", factory: { label in StreamLogHandler.standardError(label: label) })
            logger?.logLevel = .debug
        }
        let outcome = try Simulation.run(seed: seed, devices: 3, steps: steps, directory: directory.path, logger: logger)
        print(outcome.report.split(separator: "\n").first!, "in", ContinuousClock.now - started)
        if !outcome.passed {
            print(outcome.report)
            if let path = ProcessInfo.processInfo.environment["UBIQ_SIM_TRACE"] {
                try outcome.trace.joined(separator: "\n").write(toFile: "\(path)-\(seed).txt", atomically: true, encoding: .utf8)
            }
        }
        let passed = outcome.passed
        #expect(passed, "seed \(seed) failed")
    }
}
