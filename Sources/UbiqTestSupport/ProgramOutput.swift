import Foundation

/// How a program that ran to completion ended: its exit status and what it printed, so a
/// test can check a refusal as well as an answer.
public struct ProgramOutput: Sendable {
    public var status: Int32
    public var output: String
    public var errors: String
}

extension AgentProcess {
    /// Runs `program`, a binary beside `ubiqd` (`ubiq`, `ubiq-todo`), to completion with
    /// `input` on its standard input. The wait holds no thread (``ProcessExit``). A program
    /// still running after `killAfter` is killed (its status then is SIGKILL's): a test of a
    /// refusal must not wait for ever on a program that did not refuse.
    public static func run(_ program: String, _ arguments: [String], input: Data? = nil,
                           killAfter: Duration? = nil) async throws -> ProgramOutput {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binDirectory + "/" + program)
        process.arguments = arguments
        let out = try PrivatePipe(), err = try PrivatePipe()
        process.standardOutput = out.writing
        process.standardError = err.writing
        let inputPipe = try input.map { _ in try PrivatePipe() }
        if let inputPipe { process.standardInput = inputPipe.reading }
        let exit = ProcessExit(of: process)
        try process.run()
        out.childStarted()
        err.childStarted()
        inputPipe?.childStarted(writesTo: false)
        if let input, let inputPipe {
            // Written from a thread of its own: a large input fills the pipe before the program reads.
            let writer = inputPipe.writing
            Thread {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }.start()
        }
        // Both streams at once: a program stuck writing one (ArgumentParser writes its errors a
        // character at a time, and a socket pair holds few such writes) never sees the other read.
        let output = out.readInBackground(), errors = err.readInBackground()
        let killer = killAfter.map { limit in
            Task { [pid = process.processIdentifier] in
                try await Task.sleep(for: limit)
                Foundation.kill(pid, SIGKILL)
            }
        }
        await exit.wait()
        killer?.cancel()
        return ProgramOutput(status: process.terminationStatus, output: String(decoding: await output.finish(), as: UTF8.self),
                             errors: String(decoding: await errors.finish(), as: UTF8.self))
    }
}
