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
    /// `input` on its standard input.
    public static func run(_ program: String, _ arguments: [String], input: Data? = nil) throws -> ProgramOutput {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binDirectory + "/" + program)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let inputPipe = input.map { _ in Pipe() }
        if let inputPipe { process.standardInput = inputPipe }
        try process.run()
        if let input, let inputPipe {
            // Written from a thread of its own: a large input fills the pipe before the program reads.
            let writer = inputPipe.fileHandleForWriting
            Thread {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }.start()
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProgramOutput(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                             errors: String(decoding: errors, as: UTF8.self))
    }
}
