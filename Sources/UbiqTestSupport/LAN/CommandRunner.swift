import Foundation
import Synchronization

/// What a finished command printed and how it ended.
public struct CommandResult: Sendable {
    /// The exit status, or the signal number when `signalled`.
    public let status: Int32
    public let signalled: Bool
    public let stdout: String
    public let stderr: String

    public var succeeded: Bool { status == 0 && !signalled }
}

/// Runs external programs to completion with both outputs captured and a deadline, and finds
/// the system tools the LAN needs.
enum CommandRunner {
    static let searchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// The environment every command gets: ours, with the sbin folders on the path.
    static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        // A host's programs use the host's own system bus under its private /run, whatever a
        // test in this process pointed libdbus at.
        env["DBUS_SYSTEM_BUS_ADDRESS"] = nil
        env["PATH"] = [env["PATH"], searchPath].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        return env
    }

    /// The absolute path of `tool` on `PATH` or in the usual system folders.
    static func find(_ tool: String) -> String? {
        let folders = (environment["PATH"] ?? searchPath).split(separator: ":")
        for folder in folders {
            let candidate = "\(folder)/\(tool)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(30)) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let out: PrivatePipe, err: PrivatePipe
        do {
            (out, err) = (try PrivatePipe(), try PrivatePipe())
            process.standardOutput = out.writing
            process.standardError = err.writing
            try process.runWithDefaultSignalMask()
        } catch {
            throw LANError(.commandFailed, "cannot start \(executable): \(error)")
        }
        out.childStarted()
        err.childStarted()
        let killed = Atomic<Bool>(false)
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem {
            if !killed.exchange(true, ordering: .relaxed) { kill(pid, SIGKILL) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval, execute: watchdog)
        // Standard error is read on a thread of its own, not a dispatch worker: those are the
        // pool the tests' tasks run on, and this read lasts as long as the command.
        let errors = Mutex(Data())
        let readingErrors = DispatchSemaphore(value: 0)
        Thread {
            let data = err.reading.readDataToEndOfFile()
            errors.withLock { $0 = data }
            readingErrors.signal()
        }.start()
        let output = out.reading.readDataToEndOfFile()
        readingErrors.wait()
        process.waitUntilExit()
        // From here the watchdog does nothing; it could only have hit a reused pid in the instant since the reap.
        let timedOut = killed.exchange(true, ordering: .relaxed) == true
        watchdog.cancel()
        let command = ([executable] + arguments).joined(separator: " ")
        if timedOut {
            throw LANError(.timedOut, "`\(command)` ran longer than \(timeout) and was killed")
        }
        return CommandResult(
            status: process.terminationStatus,
            signalled: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: output, as: UTF8.self),
            stderr: errors.withLock { String(decoding: $0, as: UTF8.self) })
    }

    /// Runs a setup command that must succeed.
    @discardableResult
    static func check(_ executable: String, _ arguments: [String]) throws -> CommandResult {
        let result = try run(executable, arguments)
        guard result.succeeded else {
            throw LANError(.commandFailed, "`\(([executable] + arguments).joined(separator: " "))` failed (\(result.status)): "
                + result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return result
    }
}

extension Duration {
    /// The duration in seconds, for figures and for APIs that take a `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
