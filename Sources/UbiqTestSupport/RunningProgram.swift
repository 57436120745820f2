import Foundation
import Synchronization

/// A program beside `ubiqd` left running (`ubiq records watch`), what it prints gathered as
/// it comes, so a test can wait for a line; stopped with SIGTERM at the end.
public final class RunningProgram {
    private final class Printed: Sendable {
        let output = Mutex("")
        let errors = Mutex("")
    }

    private let process = Process()
    private let printed = Printed()
    private let out: PrivatePipe, err: PrivatePipe
    private var started = false

    public init(_ program: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: AgentProcess.binDirectory + "/" + program)
        process.arguments = arguments
        (out, err) = (try PrivatePipe(), try PrivatePipe())
        process.standardOutput = out.writing
        process.standardError = err.writing
        let printed = printed
        out.reading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.output.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        err.reading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.errors.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        out.childStarted()
        err.childStarted()
        started = true
    }

    deinit { stop() }

    public var output: String { printed.output.withLock { $0 } }
    public var errors: String { printed.errors.withLock { $0 } }
    public var isRunning: Bool { process.isRunning }

    /// The lines of standard output printed so far, the last one only once it is complete.
    public var lines: [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    public func stop() {
        guard started else { return }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        out.reading.readabilityHandler = nil
        err.reading.readabilityHandler = nil
    }
}
